import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type Docker from 'dockerode'
import type { WorkspaceMounts } from './workspace-mounts'
import {
  egressEnv,
  gitSafeDirectoryEnv,
  shellProgram,
  type CommandResult,
  type CommandRunInput,
  type EgressEndpoint,
  type ProgramRunInput,
  type ProgramRunner,
  type ResourcePolicy,
  type SandboxIdentity
} from '../../core'
import { killGraceMs, timeoutExitCode } from '../runner/bounded-process'
import { childEnv, outputCapFor, timeoutMsFor, withAirlockNotes } from '../runner/run-limits'
import { limitHitBetween, type ContainerAccounting } from './container-accounting'
import { runHelper, startExec, type StartedExec } from './container-exec'
import { containerBaseEnv, runUser } from './container-spec'
import { DockerProviderError } from './docker-errors'
import type { EngineTransfer } from './engine-transfer'
import { closeRoots, isLexicallyInside, proveRunRoot, type MountedRoot } from './mounted-roots'
import { RunQueue } from './run-queue'
import { quarantineChanged } from '../../core/sandbox/workspace-entries'

/**
 * Every run goes through this wrapper: the program runs in the foreground, and when it ends the
 * wrapper ends every other process of the run user in the container (`kill -KILL -1` spares only
 * the caller and processes of other uids, such as the container's init, which runs as its own uid).
 */
const wrapper = '"$@"; rc=$?; kill -KILL -1 2>/dev/null; exit $rc'

/** How often a run's CPU use is sampled against its budget (local cgroup files are cheap; the engine API is not). */
const cpuSampleMs = { 'cgroup files': 250, 'engine API': 1000 }

/**
 * The docker provider's live resource: a warm, hardened container (one per agent session and
 * runtime profile) in which programs run one at a time through `exec`, as the host's sandbox
 * identity. Workspace roots are bound at their own paths, so paths mean the same inside and out.
 * Nothing a run starts outlives it: after every run (exit, timeout, cancel, CPU budget) no
 * process of the run user is left, or the container is killed. On a remote engine (`transfer`)
 * a run's areas are copied in before it and back after it, inside the same turn of the queue.
 * With an egress endpoint (`network: "proxy"`, the bridge in `egress-sidecar.ts`) each run is told
 * its proxy and gets the connections made while it ran (runs go one at a time, so every
 * connection through the container's bridge is the running one's).
 */
export class ContainerRunner implements ProgramRunner {
  private broken = false
  private sampling = false
  private readonly released = new AbortController()
  private readonly queue = new RunQueue()
  private readonly user: string

  constructor(
    private readonly docker: Docker,
    readonly container: Docker.Container,
    private readonly roots: MountedRoot[],
    private readonly policy: ResourcePolicy,
    private readonly identity: SandboxIdentity,
    private readonly accounting: ContainerAccounting,
    private readonly cpuBudgetSeconds: number,
    /** A remote engine's copier; a proxied container's egress endpoint and the bridge sidecar carrying it. */
    readonly extras: { transfer?: EngineTransfer; egress?: EgressEndpoint; bridge?: Docker.Container; mounts?: WorkspaceMounts } = {}
  ) {
    this.user = runUser(identity)
  }

  /** A shell command line (the action is a shell command): `bash -c` in the container. */
  run(input: CommandRunInput): Promise<CommandResult> {
    return this.exec(shellProgram(input))
  }

  async exec(input: ProgramRunInput): Promise<CommandResult> {
    if (this.released.signal.aborted) throw new DockerProviderError('docker.runner_released', 'This container was released; ensure a new handle.')
    if (input.argv.length === 0) throw new DockerProviderError('docker.invalid_run', 'argv is empty.')
    if (input.readOnlyRoots?.length) {
      throw new DockerProviderError(
        'docker.grant_unsupported',
        'The docker provider runs code on snapshot grants only; read-only workspace mounts are not supported.'
      )
    }
    let env: Record<string, string>
    try {
      // Roots are bound at their own paths: git may use a repository at any of them (see gitSafeDirectoryEnv).
      const base = {
        ...containerBaseEnv,
        ...(this.extras.egress ? egressEnv() : {}),
        ...gitSafeDirectoryEnv([...this.roots.map((root) => root.path), ...(input.writableRoots ?? [])])
      }
      env = childEnv(base, input.env)
    } catch (error) {
      throw new DockerProviderError('docker.invalid_run', (error as Error).message)
    }
    const signal = AbortSignal.any([this.released.signal, ...(input.signal ? [input.signal] : [])])
    return this.queue.exclusive(signal, cancelledBeforeStart, async () => {
      // Proven inside the queue: no other run of this container is going on while the host looks.
      const extra = (input.writableRoots ?? []).map((root) => proveRunRoot(this.roots, root, this.identity))
      const cwd = this.containerCwd(extra, input.cwd)
      const transfer = this.extras.transfer
      if (!transfer) {
        const watch = this.extras.mounts?.watch() ?? []
        const result = await this.runAlone(input, cwd, env, signal)
        // No process of the run is left (`endSurvivors`): what it made at a protected path is moved now.
        const notes = quarantineChanged(watch)
        return notes.length ? { ...result, stderr: withAirlockNotes(result.stderr, notes) } : result
      }
      await transfer.into(extra)
      let result: CommandResult | undefined
      try {
        result = await this.runAlone(input, cwd, env, signal)
      } finally {
        // Copied back whatever the run's end; a failed copy-back fails the run (its outputs are not all here).
        const back = await transfer.back(extra)
        if (result && back.skipped > 0)
          result.stderr += `airlock: ${back.skipped} entr${back.skipped === 1 ? 'y' : 'ies'} of the execution area (links, devices) were not copied back from the remote engine\n`
      }
      return result
    })
  }

  /** True while the container should be reused. */
  isUsable(): boolean {
    return !this.broken && !this.released.signal.aborted
  }

  /** Ends running commands, refuses new ones and lets go of the roots (the provider removes the container). */
  close(): void {
    this.released.abort()
    closeRoots(this.roots)
  }

  private async runAlone(input: ProgramRunInput, cwd: string, env: Record<string, string>, signal: AbortSignal): Promise<CommandResult> {
    const connections = this.extras.egress?.track(randomUUID())
    let result: CommandResult
    try {
      result = await this.runTracked(input, cwd, env, signal)
    } catch (error) {
      connections?.() // nobody takes them: let the ledger forget the run
      throw error
    }
    return connections ? { ...result, egress: connections() } : result
  }

  private async runTracked(input: ProgramRunInput, cwd: string, env: Record<string, string>, signal: AbortSignal): Promise<CommandResult> {
    const started = performance.now()
    // Not awaited: through a remote engine a sample takes up to a second, which the run should not wait for.
    const cpuAtStart = this.accounting.cpuNanos().catch(() => undefined)
    const limitsAtStart = this.accounting.limitEvents().catch(() => undefined)
    const run = await startExec(this.docker, this.container, {
      argv: ['sh', '-c', wrapper, 'airlock', ...input.argv],
      user: this.user,
      cwd,
      env,
      stdin: input.stdin,
      maxBytes: outputCapFor(this.policy),
      onOutput: input.onOutput
    }).catch((error: Error) => {
      throw new DockerProviderError('docker.invalid_run', `The program could not be started in the container: ${error.message}`, {}, { cause: error })
    })
    let ending: 'timeout' | 'cancel' | 'cpu' | undefined
    let terminating: Promise<void> | undefined
    let over = false
    const stop = (why: 'timeout' | 'cancel' | 'cpu') => {
      // Once the run is over its clean-up must not start: `kill -1` would hit the next run.
      if (ending || over) return
      ending = why
      terminating = this.terminate(run, why === 'cpu' ? 0 : killGraceMs)
    }
    const timer = setTimeout(() => stop('timeout'), timeoutMsFor(this.policy, input.timeoutSeconds))
    const onAbort = () => stop('cancel')
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort()
    const meter = setInterval(() => void this.checkCpu(cpuAtStart, () => stop('cpu')), cpuSampleMs[this.accounting.source])
    await run.ended
    over = true
    clearTimeout(timer)
    clearInterval(meter)
    signal.removeEventListener('abort', onAbort)
    await terminating
    await this.endSurvivors()
    const exitCode = (await run.exec.inspect().catch(() => undefined))?.ExitCode ?? 1
    const cgroupVerdict = limitHitBetween(await limitsAtStart, await this.accounting.limitEvents().catch(() => undefined))
    const limitHit = ending === 'cpu' || (ending === undefined && exitCode === 128 + 24) ? ('cpu' as const) : cgroupVerdict
    const stderr = run.stderr.text()
    return {
      stdout: run.stdout.text(),
      stderr: withAirlockNotes(stderr, limitHit ? [`ended by the ${limitHit} limit`] : []),
      exitCode: ending === 'timeout' ? timeoutExitCode : ending === 'cancel' ? 130 : exitCode,
      durationMs: Math.round(performance.now() - started),
      stdoutTruncated: run.stdout.truncated,
      stderrTruncated: run.stderr.truncated,
      timedOut: ending === 'timeout',
      ...(ending === 'cancel' ? { cancelled: true } : {}),
      ...(limitHit ? { limitHit } : {})
    }
  }

  /** Ends a run's budget when the container's CPU time since the run started passes it. */
  private async checkCpu(baseline: Promise<number | undefined>, exceeded: () => void): Promise<void> {
    if (this.sampling) return // a slow engine answers later than the next tick: no pile-up
    this.sampling = true
    try {
      const atStart = await baseline
      const now = await this.accounting.cpuNanos().catch(() => undefined)
      if (atStart !== undefined && now !== undefined && now - atStart >= this.cpuBudgetSeconds * 1e9) exceeded()
    } finally {
      this.sampling = false
    }
  }

  /**
   * SIGTERM to every process of the run user, SIGKILL after the grace (a fresh exec as that user:
   * with every capability dropped nobody else may signal them). A container that does not let go
   * of the run's stream 3 s later no longer obeys: it is killed.
   */
  private async terminate(run: StartedExec, graceMs: number): Promise<void> {
    const script = graceMs > 0 ? `kill -TERM -1 2>/dev/null; sleep ${graceMs / 1000}; kill -KILL -1 2>/dev/null; true` : 'kill -KILL -1 2>/dev/null; true'
    const killed = runHelper(this.docker, this.container, ['sh', '-c', script], this.user, graceMs + 5000).catch(() => undefined)
    const gone = await Promise.race([run.ended.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs + 3000).unref())])
    if (!gone) {
      await this.kill()
      run.destroy()
    }
    await killed
  }

  /**
   * Makes sure no process of the run user is left after a run: the wrapper already ended them
   * unless the program killed the wrapper first; then a fresh exec does (`kill -KILL -1`). If
   * some still remain after that, the container is killed rather than trusted.
   */
  private async endSurvivors(): Promise<void> {
    const uid = this.identity.uid
    for (let attempt = 0; attempt < 40; attempt++) {
      if (this.broken) return // already killed: nothing of it runs any more
      const left = await this.accounting.processesOf(uid).catch(() => undefined)
      if (left?.length === 0) return
      if (attempt === 0) await pause(20)
      else if (attempt % 10 === 1)
        await runHelper(this.docker, this.container, ['sh', '-c', 'kill -KILL -1 2>/dev/null; true'], this.user, 5000).catch(() => undefined)
      else await pause(50)
    }
    await this.kill()
  }

  /** Kills the container: it no longer obeys, or something of a run could not be ended. */
  private async kill(): Promise<void> {
    this.broken = true
    await this.container.kill().catch(() => undefined)
  }

  /** The working directory: inside a mounted root or a run root, compared as paths (the container resolves it in its own mounts). */
  private containerCwd(extra: string[], cwd: string | undefined): string {
    const base = cwd === undefined && extra[0] ? extra[0] : this.roots[0]!.path
    const wanted = cwd === undefined || cwd === '' ? base : resolve(this.roots[0]!.path, cwd)
    if (wanted.includes('\0') || ![...this.roots.map((root) => root.path), ...extra].some((root) => isLexicallyInside(root, wanted))) {
      throw new DockerProviderError('docker.workspace_refused', `The working directory ${cwd} is outside the workspace.`, { cwd })
    }
    return wanted
  }
}

function cancelledBeforeStart(): CommandResult {
  return { stdout: '', stderr: '', exitCode: 130, durationMs: 0, stdoutTruncated: false, stderrTruncated: false, timedOut: false, cancelled: true }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
