import { spawn, type ChildProcess } from 'node:child_process'
import type { CommandResult, OutputListener } from '../../core'
import { OutputCap } from './output-cap'

/**
 * A process spawned ahead of time (its own group, stdout/stderr piped) that waits until `begin`
 * is called: the sandbox spawns it early so joining a cgroup happens off the critical path.
 */
export type PreparedProcess = { child: ChildProcess; begin(): void }

/** How a process group is spawned: pipes from fd 3 on, then open descriptors passed on (e.g. bind sources). */
export type GroupSpawnOptions = {
  cwd: string
  env: Record<string, string>
  stdin: 'pipe' | 'ignore'
  extraPipes?: number
  /** Descriptors of this process that the child gets right after the extra pipes, in order. */
  passFds?: number[]
  /** Runs the child as this uid/gid (supplementary groups dropped): how a sandbox leaves root behind. */
  identity?: { uid: number; gid: number }
}

/** Spawns argv as the leader of a new process group with piped stdout/stderr and extra pipes from fd 3 on. */
export function spawnGroup(argv: string[], options: GroupSpawnOptions): ChildProcess {
  return spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: [options.stdin, 'pipe', 'pipe', ...Array.from({ length: options.extraPipes ?? 0 }, () => 'pipe' as const), ...(options.passFds ?? [])],
    ...(options.identity ? { uid: options.identity.uid, gid: options.identity.gid } : {})
  })
}

/** Writes `data` to one of a child's extra pipes and closes it. */
export function feedPipe(child: ChildProcess, fd: number, data: Buffer): void {
  const pipe = child.stdio[fd] as NodeJS.WritableStream
  pipe.on('error', () => undefined)
  pipe.end(data)
}

/** One bounded run: argv only, in its own process group, with a deadline and an output cap. */
export type BoundedRun = {
  /** The program; or `prepared` for a process spawned earlier. */
  argv?: string[]
  prepared?: PreparedProcess
  cwd: string
  env: Record<string, string>
  timeoutMs: number
  maxOutputBytes: number
  signal?: AbortSignal
  stdin?: string
  /** Extra data for file descriptor 3 (e.g. a seccomp program for bwrap). */
  fd3?: Buffer
  /** Told the group's pid once it runs (e.g. to record it for crash recovery); its result is called when the group is gone. */
  onStart?: (pid: number) => () => void
  /** Runs the program as this uid/gid (the sandbox identity when Airlock is root). */
  identity?: { uid: number; gid: number }
  /** Told the output as it arrives (a listener that throws is not told again; the run goes on). */
  onOutput?: OutputListener
}

/** Exit code reported for a run ended by its deadline (as `timeout(1)` does). */
export const timeoutExitCode = 124
/** Grace between SIGTERM and SIGKILL. */
export const killGraceMs = 1000

/**
 * The bounded process carrier shared by the local providers: spawns argv (never a shell string)
 * as a new process group, caps stdout and stderr separately, and ends the whole group on timeout
 * (SIGTERM, SIGKILL after 1 s, exit code 124) or cancellation. When the main process exits,
 * whatever it left in its group is killed too, so nothing of the call outlives it.
 */
export function runBounded(run: BoundedRun): Promise<CommandResult> {
  const started = performance.now()
  const stdout = new OutputCap(run.maxOutputBytes)
  const stderr = new OutputCap(run.maxOutputBytes)
  return new Promise<CommandResult>((resolve) => {
    if (run.signal?.aborted) {
      resolve({ ...emptyResult(started), exitCode: 130, cancelled: true })
      return
    }
    const child =
      run.prepared?.child ??
      spawnGroup(run.argv!, {
        cwd: run.cwd,
        env: run.env,
        stdin: run.stdin === undefined ? 'ignore' : 'pipe',
        extraPipes: run.fd3 ? 1 : 0,
        identity: run.identity
      })
    let timedOut = false
    let cancelled = false
    let killTimer: NodeJS.Timeout | undefined
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, signal)
      } catch {
        // The group is already gone.
      }
    }
    const terminate = () => {
      killGroup('SIGTERM')
      killTimer ??= setTimeout(() => killGroup('SIGKILL'), killGraceMs)
    }
    const deadline = setTimeout(() => {
      timedOut = true
      terminate()
    }, run.timeoutMs)
    const onAbort = () => {
      cancelled = true
      terminate()
    }
    run.signal?.addEventListener('abort', onAbort, { once: true })

    const tell = liveTeller(run.onOutput)
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout.push(chunk)
      tell('stdout', chunk)
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(chunk)
      tell('stderr', chunk)
    })
    const untrack = child.pid !== undefined ? run.onStart?.(child.pid) : undefined
    // A prepared process may take its program on stdin (a spare gVisor sandbox): begin before the run's own input.
    run.prepared?.begin()
    if (child.stdin) {
      child.stdin.on('error', () => undefined)
      child.stdin.end(run.stdin ?? '')
    }
    if (run.fd3) feedPipe(child, 3, run.fd3)

    let spawnError: Error | undefined
    child.on('error', (error) => {
      spawnError = error
    })
    child.on('close', (code, signal) => {
      clearTimeout(deadline)
      clearTimeout(killTimer)
      run.signal?.removeEventListener('abort', onAbort)
      // Anything the program left behind in its group (backgrounded children) ends with it.
      killGroup('SIGKILL')
      untrack?.()
      const exitCode = timedOut ? timeoutExitCode : cancelled ? 130 : (code ?? 128 + signalNumber(signal))
      const errorText = spawnError ? `could not start ${run.argv?.[0] ?? 'the program'}: ${spawnError.message}\n` : ''
      resolve({
        stdout: stdout.text(),
        stderr: errorText + stderr.text(),
        exitCode: spawnError ? 127 : exitCode,
        durationMs: Math.round(performance.now() - started),
        stdoutTruncated: stdout.truncated,
        stderrTruncated: stderr.truncated,
        timedOut,
        ...(cancelled ? { cancelled } : {})
      })
    })
    // A background child that inherited stdout keeps the pipes open after the main process
    // exits; end the group as soon as the main process is gone so 'close' can follow.
    child.on('exit', () => killGroup('SIGKILL'))
  })
}

/** Tells a run's output listener each chunk; one that throws is dropped (it watches; it does not decide). */
export function liveTeller(listener: OutputListener | undefined): OutputListener {
  let live = listener
  return (stream, chunk) => {
    if (!live) return
    try {
      live(stream, chunk)
    } catch {
      live = undefined
    }
  }
}

function emptyResult(started: number): CommandResult {
  return {
    stdout: '',
    stderr: '',
    exitCode: 0,
    durationMs: Math.round(performance.now() - started),
    stdoutTruncated: false,
    stderrTruncated: false,
    timedOut: false
  }
}

const signals: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGILL: 4,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15,
  SIGXCPU: 24
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? (signals[signal] ?? 1) : 1
}
