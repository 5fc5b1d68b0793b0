import { join } from 'node:path'
import type Docker from 'dockerode'
import { it } from 'vitest'
import { claimWorkspace, ExecutionResourceManager, executeCode, executionRequirement } from '../src/main/core'
import { DockerProvider, checkEngine, createDockerClient } from '../src/main/providers'
import { ensureTestImages } from '../test/support/docker-images'
import { makeTempDir } from '../test/support/temp-home'
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
  const workspace = join(dir.path, 'ws')
  claimWorkspace(workspace)
  const manager = new ExecutionResourceManager().registerProvider(new DockerProvider({ home: dir.path, docker }))
  const target = { workspace, mode: 'snapshot' as const, isolation: { isolation: 'required' as const }, providers: ['docker'], scope: 'session' as const, ownerId: 'bench', policy: { timeoutSeconds: 60 } }
  // The session holds its container, as an agent session does; each run_code adds a reference.
  await manager.ensure(executionRequirement(target, 'python'))
  const bare = await docker.createContainer({ Image: 'airlock/python:latest', Cmd: ['sleep', 'infinity'], HostConfig: { NetworkMode: 'none' } })
  await bare.start()
  let seq = 0
  const runCode = async () => {
    const outcome = await executeCode({ ...target, manager, request: { language: 'python', sourceCode: 'print(1)' }, actionCallId: `bench-${++seq}` })
    if (outcome.status !== 'success') throw new Error(`run_code failed: ${outcome.result.stderr}`)
  }
  const warm = await compare({
    name: 'docker.warm_run_code.ratio_vs_bare_exec',
    samples: 40,
    pipeline: runCode,
    baseline: () => directExec(bare, ['python3', '-c', 'print(1)']),
    note: 'executeCode (bundle, grant, ensure with health check, exec, collect, release) in a warm session container vs a direct dockerode exec'
  })
  const coldVsWarm: BenchResult = await compare({
    name: 'docker.cold_vs_warm.ratio',
    samples: 10,
    warmup: 1,
    pipeline: async () => {
      const requirement = executionRequirement({ ...target, ownerId: `cold-${++seq}` }, 'python')
      const handle = await manager.ensure(requirement)
      await executeCode({ ...target, ownerId: requirement.ownerId!, manager, request: { language: 'python', sourceCode: 'print(1)' }, actionCallId: `bench-${++seq}` })
      await manager.release(handle)
    },
    baseline: runCode,
    note: 'a fresh container per call (create, start, run, remove) vs the warm session container'
  })
  await manager.releaseAll()
  await bare.remove({ force: true })
  dir.remove()
  record('docker', [warm, coldVsWarm])
}, 600_000)
