import type Docker from 'dockerode'
import { it } from 'vitest'
import { DockerProvider, checkEngine, createDockerClient } from '../src/main/providers'
import { ensureTestImages } from '../test/support/docker-images'
import { makeTempDir } from '../test/support/temp-home'
import { actionPath } from './support/action-path'
import { compare, record, type BenchResult } from './support/measure'

/** A direct dockerode exec of argv into a running container, waiting for its exit code. */
async function directExec(container: Docker.Container, argv: string[]): Promise<void> {
  const exec = await container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, User: '1000:1000' })
  const stream = await exec.start({ hijack: true, stdin: false })
  stream.resume()
  await new Promise((resolve) => stream.on('end', resolve))
  await exec.inspect()
}

it('docker: warm run_code vs direct exec, and cold vs warm', async () => {
  const docker = createDockerClient()
  const engine = await checkEngine(docker)
  if (!engine.ok) {
    record('docker', [{ name: 'docker.warm_run_code.ratio_vs_bare_exec', unit: 'ms', median: 0, p95: 0, samples: 0, note: `not measured: ${engine.reason}` }])
    return
  }
  await ensureTestImages(docker)
  const dir = makeTempDir('airlock-bench-docker-', { outsideTmp: true })
  // The agent's full path: the dispatcher, run_code, and the session holding its warm container.
  const agentPath = actionPath(dir.path, [new DockerProvider({ home: dir.path, docker })], { providers: ['docker'] })
  const manager = agentPath.manager
  await agentPath.runCode()
  const bare = await docker.createContainer({ Image: 'airlock/python:latest', Cmd: ['sleep', 'infinity'], HostConfig: { NetworkMode: 'none' } })
  await bare.start()
  const warm = await compare({
    name: 'docker.warm_run_code.ratio_vs_bare_exec',
    samples: 40,
    pipeline: () => agentPath.runCode(),
    baseline: () => directExec(bare, ['python3', '-c', 'print(1)']),
    note: 'run_code {python, print(1)} through the full dispatcher (validation, hooks, history port, session hold, bundle, grant, ensure with health check, exec, collect, release) in the warm session container vs a direct dockerode exec'
  })
  let seq = 0
  const coldVsWarm: BenchResult = await compare({
    name: 'docker.cold_vs_warm.ratio',
    samples: 10,
    warmup: 1,
    pipeline: async () => {
      // A session of its own: its first call starts a container, and ending the session removes it.
      const session = { ...agentPath.agent, sessionId: `cold-${++seq}` }
      const result = await agentPath.dispatcher.execute({ tool: 'run_code', input: { language: 'python', sourceCode: 'print(1)' }, agent: session })
      if (result.status !== 'success') throw new Error(`run_code ended ${result.status}`)
      await agentPath.dispatcher.sessions.end(session.sessionId)
    },
    baseline: () => agentPath.runCode(),
    note: 'run_code in a fresh session (container created, started, run, removed) vs the warm session container, both through the dispatcher'
  })
  await agentPath.close()
  await manager.releaseAll()
  await bare.remove({ force: true })
  dir.remove()
  record('docker', [warm, coldVsWarm])
}, 600_000)
