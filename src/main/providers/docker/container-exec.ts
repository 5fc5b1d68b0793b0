import { PassThrough } from 'node:stream'
import type Docker from 'dockerode'
import type { OutputListener } from '../../core'
import { liveTeller } from '../runner/bounded-process'
import { OutputCap } from '../runner/output-cap'

/** One program started with `exec` in a container: its capped output and the end of its stream. */
export type StartedExec = {
  exec: Docker.Exec
  stdout: OutputCap
  stderr: OutputCap
  /** Resolves when the exec's stream ends (the program and everything holding its output are gone). */
  ended: Promise<void>
  /** Drops the stream (a container that no longer obeys). */
  destroy(): void
}

/** What to start: argv (no shell), the numeric user, working directory, environment, optional stdin. */
export type ExecSpec = { argv: string[]; user: string; cwd?: string; env?: Record<string, string>; stdin?: string; maxBytes: number; onOutput?: OutputListener }

/** Starts `spec.argv` in the container as `spec.user`, demultiplexing stdout/stderr into capped buffers. */
export async function startExec(docker: Docker, container: Docker.Container, spec: ExecSpec): Promise<StartedExec> {
  const exec = await container.exec({
    Cmd: spec.argv,
    User: spec.user,
    ...(spec.cwd ? { WorkingDir: spec.cwd } : {}),
    Env: Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: spec.stdin !== undefined
  })
  const stream = await exec.start({ hijack: true, stdin: spec.stdin !== undefined })
  const stdout = new OutputCap(spec.maxBytes)
  const stderr = new OutputCap(spec.maxBytes)
  const out = new PassThrough()
  const err = new PassThrough()
  const tell = liveTeller(spec.onOutput)
  out.on('data', (chunk: Buffer) => {
    stdout.push(chunk)
    tell('stdout', chunk)
  })
  err.on('data', (chunk: Buffer) => {
    stderr.push(chunk)
    tell('stderr', chunk)
  })
  docker.modem.demuxStream(stream, out, err)
  if (spec.stdin !== undefined) stream.end(spec.stdin)
  const ended = new Promise<void>((resolve) => {
    stream.on('end', resolve)
    stream.on('close', resolve)
    stream.on('error', resolve)
  })
  return { exec, stdout, stderr, ended, destroy: () => (stream as unknown as { destroy(): void }).destroy() }
}

/**
 * Runs a short helper program (a probe or a reaper) to its end and returns its exit code and
 * output; one that outlives `timeoutMs` is dropped and reported as exit 124.
 */
export async function runHelper(
  docker: Docker,
  container: Docker.Container,
  argv: string[],
  user: string,
  timeoutMs = 10_000
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const started = await startExec(docker, container, { argv, user, maxBytes: 64 * 1024 })
  let timer: NodeJS.Timeout | undefined
  const finished = await Promise.race([started.ended.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))])
  clearTimeout(timer)
  if (!finished) started.destroy()
  const inspected = finished ? await started.exec.inspect().catch(() => undefined) : undefined
  return { exitCode: finished ? (inspected?.ExitCode ?? 1) : 124, stdout: started.stdout.text(), stderr: started.stderr.text() }
}
