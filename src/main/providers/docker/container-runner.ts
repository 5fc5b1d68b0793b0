import { randomUUID } from 'node:crypto'
import { chownSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import type Docker from 'dockerode'
import type { CommandResult, CommandRunInput, ProgramRunInput, ProgramRunner, ResourcePolicy } from '../../core'
import { killGraceMs, timeoutExitCode } from '../process/bounded-process'
import { OutputCap } from '../process/output-cap'
import { childEnv, outputCapFor, timeoutMsFor } from '../process/run-limits'
import { isInside, realRoots, resolveCwd } from '../process/workspace-paths'

/**
 * Each command runs as its own session inside the container (setsid), so its whole process group
 * can be ended: after it exits (leftover background children) or on timeout/cancel.
 */
const wrapper = (pidFile: string) => `setsid "$@" & p=$!; echo $p > ${pidFile}; wait $p; rc=$?; kill -KILL -$p 2>/dev/null; rm -f ${pidFile}; exit $rc`

/**
 * The docker provider's live resource: a warm, hardened container (one per agent session and
 * runtime profile) in which each program runs through `exec`. The execution roots are mounted at
 * the same paths, so paths mean the same inside and out.
 */
export class ContainerRunner implements ProgramRunner {
  private broken = false
  private readonly released = new AbortController()

  constructor(
    private readonly docker: Docker,
    readonly container: Docker.Container,
    private readonly roots: string[],
    private readonly policy: ResourcePolicy,
    private readonly user: { uid: number; gid: number } | undefined,
    private readonly baseEnv: Record<string, string>
  ) {}

  run(input: CommandRunInput): Promise<CommandResult> {
    return this.exec({ argv: ['bash', '-c', input.command], cwd: input.cwd, timeoutSeconds: input.timeoutSeconds, env: input.env, signal: input.signal })
  }

  async exec(input: ProgramRunInput): Promise<CommandResult> {
    if (this.released.signal.aborted) throw new Error('this container was released')
    const extra = input.writableRoots?.length ? realRoots(input.writableRoots) : []
    if (extra.some((root) => !this.roots.some((mounted) => isInside(mounted, root)))) throw new Error('a writable root of this run is not mounted in the container')
    if (input.readOnlyRoots?.length) throw new Error('the docker provider runs code on snapshot grants; read-only workspace mounts are not supported yet')
    const cwd = resolveCwd([...this.roots, ...extra], input.cwd === undefined && extra[0] ? extra[0] : input.cwd)
    if (this.user && process.getuid?.() === 0) for (const root of extra) chownTree(root, this.user)
    const env = childEnv(this.baseEnv, input.env)
    const pidFile = `/tmp/.airlock-${randomUUID()}.pid`
    const started = performance.now()
    const exec = await this.container.exec({
      Cmd: ['sh', '-c', wrapper(pidFile), 'airlock', ...input.argv],
      WorkingDir: cwd,
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      AttachStdout: true,
      AttachStderr: true,
      AttachStdin: input.stdin !== undefined,
      ...(this.user ? { User: `${this.user.uid}:${this.user.gid}` } : {})
    })
    const stream = await exec.start({ hijack: true, stdin: input.stdin !== undefined })
    const maxBytes = outputCapFor(this.policy)
    const stdout = new OutputCap(maxBytes)
    const stderr = new OutputCap(maxBytes)
    const out = new PassThrough()
    const err = new PassThrough()
    out.on('data', (chunk: Buffer) => stdout.push(chunk))
    err.on('data', (chunk: Buffer) => stderr.push(chunk))
    this.docker.modem.demuxStream(stream, out, err)
    if (input.stdin !== undefined) stream.end(input.stdin)

    let timedOut = false
    let cancelled = false
    let ended = false
    const stop = () => void this.killGroup(pidFile, stream, () => ended)
    const timer = setTimeout(() => {
      timedOut = true
      stop()
    }, timeoutMsFor(this.policy, input.timeoutSeconds))
    const onAbort = () => {
      cancelled = true
      stop()
    }
    const signals = [input.signal, this.released.signal].filter((s): s is AbortSignal => s !== undefined)
    for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true })
    await new Promise<void>((resolve) => {
      stream.on('end', resolve)
      stream.on('close', resolve)
      stream.on('error', resolve)
    })
    ended = true
    clearTimeout(timer)
    for (const signal of signals) signal.removeEventListener('abort', onAbort)
    const inspected = await exec.inspect().catch(() => undefined)
    return {
      stdout: stdout.text(),
      stderr: stderr.text(),
      exitCode: timedOut ? timeoutExitCode : cancelled ? 130 : (inspected?.ExitCode ?? 1),
      durationMs: Math.round(performance.now() - started),
      stdoutTruncated: stdout.truncated,
      stderrTruncated: stderr.truncated,
      timedOut,
      ...(cancelled ? { cancelled } : {})
    }
  }

  /** True while the container should be reused. */
  isUsable(): boolean {
    return !this.broken && !this.released.signal.aborted
  }

  /** Ends running commands and refuses new ones (the provider removes the container). */
  close(): void {
    this.released.abort()
  }

  /** SIGTERM to the command's group, SIGKILL after the grace; a container that does not comply is killed. */
  private async killGroup(pidFile: string, stream: NodeJS.ReadWriteStream, ended: () => boolean): Promise<void> {
    const script = `p=$(cat ${pidFile} 2>/dev/null) || exit 0; kill -TERM -$p 2>/dev/null; sleep ${killGraceMs / 1000}; kill -KILL -$p 2>/dev/null; true`
    try {
      // Same user as the command: with every capability dropped, root in the container cannot signal it.
      const killer = await this.container.exec({ Cmd: ['sh', '-c', script], AttachStdout: true, AttachStderr: true, ...(this.user ? { User: `${this.user.uid}:${this.user.gid}` } : {}) })
      const killStream = await killer.start({ hijack: true, stdin: false })
      killStream.resume()
    } catch {
      this.broken = true
    }
    // A command that still holds its stream 3 s later has a container that no longer obeys: kill it.
    setTimeout(() => {
      if (ended()) return
      this.broken = true
      void this.container.kill().catch(() => undefined)
      ;(stream as unknown as { destroy(): void }).destroy()
    }, killGraceMs + 3000).unref()
  }
}

/** Gives a run's execution area to the container user (Airlock runs as root, the image's user does not). */
function chownTree(path: string, user: { uid: number; gid: number }): void {
  chownSync(path, user.uid, user.gid)
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) chownTree(join(path, entry.name), user)
    else if (!entry.isSymbolicLink()) chownSync(join(path, entry.name), user.uid, user.gid)
  }
}
