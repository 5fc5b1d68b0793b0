import type { EgressRecord } from '@shared/network'

/**
 * The live resources of the built-in kinds (SPEC §4.1), as core types so that actions can use
 * them without importing a provider. Providers implement them; `providers/index.ts` re-exports.
 */

/** What running a command or program returned; output is bounded and the bound reported. */
export type CommandResult = {
  stdout: string
  stderr: string
  exitCode: number
  durationMs: number
  stdoutTruncated: boolean
  stderrTruncated: boolean
  timedOut: boolean
  /** True when the caller's AbortSignal ended it. */
  cancelled?: boolean
  /** Which enforced limit ended it, when one did (`memory`, `pids`, `cpu`). */
  limitHit?: 'memory' | 'pids' | 'cpu'
  /** The connections it made through the egress proxy (`network: "proxy"`), decided and counted. */
  egress?: EgressRecord[]
}

/** Which of a run's output streams a chunk came from. */
export type OutputStream = 'stdout' | 'stderr'

/**
 * Told each chunk of a run's output as it arrives, before the run ends (what the operator and the
 * agent's progress see live). It must not throw or block; the result still carries the output.
 */
export type OutputListener = (stream: OutputStream, chunk: Uint8Array) => void

/** One command line for a `bash` handle. `cwd` resolves inside the first workspace root. */
export type CommandRunInput = {
  command: string
  cwd?: string
  /** This run's deadline (never past the handle policy's `timeoutSeconds`). */
  timeoutSeconds?: number
  /** This run's output cap per stream (never past the handle policy's `maxOutputBytes`). */
  maxOutputBytes?: number
  env?: Record<string, string>
  signal?: AbortSignal
  /** Told the output as it arrives. */
  onOutput?: OutputListener
}

/** The live resource of every handle of kind `bash` (providers bash, bubblewrap, docker, trusted_local). */
export interface CommandRunner {
  run(input: CommandRunInput): Promise<CommandResult>
}

/** One program (argv, no shell) for a `code_execution` handle. */
export type ProgramRunInput = {
  argv: string[]
  cwd?: string
  /** This run's deadline (never past the handle policy's `timeoutSeconds`). */
  timeoutSeconds?: number
  /** This run's output cap per stream (never past the handle policy's `maxOutputBytes`). */
  maxOutputBytes?: number
  env?: Record<string, string>
  stdin?: string
  signal?: AbortSignal
  /** Told the output as it arrives. */
  onOutput?: OutputListener
  /** Extra writable roots for this run (a task workspace's execution area). */
  writableRoots?: string[]
  /** Extra roots the run may read but not write (a read-only workspace grant). */
  readOnlyRoots?: string[]
}

/** The live resource of `code_execution` handles: runs programs inside the provider's boundary. */
export interface ProgramRunner extends CommandRunner {
  exec(input: ProgramRunInput): Promise<CommandResult>
}

/** A shell command line as the program that runs it: `bash -c <command>` with the run's own settings. */
export function shellProgram({ command, ...run }: CommandRunInput): ProgramRunInput {
  return { argv: ['bash', '-c', command], ...run }
}
