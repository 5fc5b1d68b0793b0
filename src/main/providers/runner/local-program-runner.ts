import type { EgressRecord } from '@shared/network'
import { existsSync } from 'node:fs'
import {
  gitSafeDirectoryEnv,
  shellProgram,
  type CommandResult,
  type CommandRunInput,
  type ProgramRunInput,
  type ProgramRunner,
  type ResourcePolicy
} from '../../core'
import { runBounded, type PreparedProcess } from './bounded-process'
import type { RunLedger } from './run-ledger'
import { childEnv, eitherSignal, outputCapFor, timeoutMsFor, withAirlockNotes } from './run-limits'
import { realRoots, resolveCwd } from '../../core/sandbox/workspace-paths'
import { ProviderError } from '../../core/provider-error'

/** How a provider turns one program run into a process: identity on the host, bwrap for the sandbox. */
export type Launch = {
  /** The program to spawn now, or a process spawned ahead that starts on `begin`. */
  argv?: string[]
  prepared?: PreparedProcess
  /** Runs after the process is gone (e.g. sweeps and removes a cgroup); may say which limit ended it. */
  finish?: (exitCode: number) => Promise<CommandResult['limitHit'] | undefined>
  /** The run's cgroup directories, recorded with its process group for crash recovery. */
  cgroupDirs?: string[]
  /** What the run did through the egress proxy, taken once it is over (`network: "proxy"`). */
  egress?: () => EgressRecord[]
  /** Host-side work once the run is over (after `finish`); each line it returns ends the run's stderr as `airlock: …`. */
  settle?: () => string[]
  /**
   * Runs just after the process began, on the next turn of the event loop: the host only waits
   * while the program runs, so a provider prepares what the next run needs here, off the path from
   * the run's end to its result (bubblewrap spawns its spare launchers).
   */
  started?: () => void
}

/** Where a runner records its process groups for crash recovery, and under which provider. */
export type RunRecording = { ledger: RunLedger; providerId: string }

/** What a launcher is asked to prepare. */
export type LaunchRequest = { argv: string[]; cwd: string; env: Record<string, string>; writableRoots: string[]; readOnlyRoots: string[]; timeoutMs: number }

/** Builds the launch of one run. */
export type Launcher = (request: LaunchRequest) => Promise<Launch>

/**
 * A `ProgramRunner` over the bounded process carrier, shared by `trusted_local` and `bubblewrap`:
 * cwd resolves inside the workspace roots (or a run's extra writable roots), the environment is
 * built from scratch, time and output are bounded, and release ends whatever still runs.
 */
export class LocalProgramRunner implements ProgramRunner {
  private readonly released = new AbortController()

  constructor(
    private readonly roots: string[],
    private readonly policy: ResourcePolicy,
    private readonly baseEnv: Record<string, string>,
    private readonly launcher: Launcher,
    private readonly recording?: RunRecording
  ) {}

  /** A shell command line (the action is a shell command): `bash -c` inside the boundary. */
  run(input: CommandRunInput): Promise<CommandResult> {
    return this.exec(shellProgram(input))
  }

  async exec(input: ProgramRunInput): Promise<CommandResult> {
    if (this.released.signal.aborted) throw new ProviderError('runner_released', 'this runner was released')
    if (input.argv.length === 0) throw new ProviderError('invalid_program', 'argv is empty')
    const writableRoots = realRoots([...this.roots, ...(input.writableRoots ?? [])]).slice(this.roots.length)
    const readOnlyRoots = input.readOnlyRoots?.length ? realRoots(input.readOnlyRoots) : []
    const cwd = resolveCwd([...this.roots, ...writableRoots, ...readOnlyRoots], input.cwd === undefined && writableRoots[0] ? writableRoots[0] : input.cwd)
    // git may use a repository at any root this run can reach (see gitSafeDirectoryEnv).
    const env = childEnv({ ...this.baseEnv, ...gitSafeDirectoryEnv([...this.roots, ...writableRoots, ...readOnlyRoots]) }, input.env)
    const timeoutMs = timeoutMsFor(this.policy, input.timeoutSeconds)
    const launch = await this.launcher({ argv: input.argv, cwd, env, writableRoots, readOnlyRoots, timeoutMs })
    const result = await runBounded({
      argv: launch.argv,
      prepared: launch.prepared,
      cwd,
      env,
      timeoutMs,
      maxOutputBytes: outputCapFor(this.policy, input.maxOutputBytes),
      signal: eitherSignal(input.signal, this.released.signal),
      stdin: input.stdin,
      onOutput: input.onOutput,
      onStart: (pid) => {
        if (launch.started) setImmediate(launch.started)
        return this.recording ? this.recording.ledger.record(this.recording.providerId, pid, launch.cgroupDirs) : () => undefined
      }
    })
    const limitHit = await launch.finish?.(result.exitCode)
    const egress = launch.egress?.()
    const notes = [...(limitHit ? [`ended by the ${limitHit} limit`] : []), ...(launch.settle?.() ?? [])]
    const finished = { ...result, ...(egress ? { egress } : {}), ...(limitHit ? { limitHit } : {}) }
    return notes.length ? { ...finished, stderr: withAirlockNotes(result.stderr, notes) } : finished
  }

  /** True while open and its workspace roots exist. */
  isUsable(): boolean {
    return !this.released.signal.aborted && this.roots.every((root) => existsSync(root))
  }

  /** Ends every run still going and refuses new ones; `onClose` ends what the launcher keeps (awaited by the provider's release). */
  close(): Promise<void> {
    this.released.abort()
    this.closing ??= this.onClose?.() ?? Promise.resolve()
    return this.closing
  }

  private closing?: Promise<void>

  /** Set by a provider whose launcher keeps something between runs (warm sandbox launchers). */
  onClose?: () => Promise<void>
}
