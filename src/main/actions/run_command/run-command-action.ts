import { AirlockError } from '@shared/errors'
import { realpathSync } from 'node:fs'
import { z } from 'zod'
import type { ActionContext, ActionOutcome, ActionSpec, CommandResult, CommandRunner, ResourceHandle } from '../../core'
import { executionDiagnostics, providerFacts, recordEgress, recordNetworkUse, selectionFailure } from './execution-profile'
import { cwdMarker, SessionDirectories, takeCwdReport, withCwdReport, workspaceDirectory, type SessionDirectoryStore } from './session-directory'
import { shellRequirement } from './shell-session'

const noNul = (text: string) => !text.includes('\0')

/** The input of `run_command` (SPEC §5.3). Errors name the field. */
export const runCommandInputSchema = z
  .object({
    command: z
      .string()
      .min(1, 'must not be empty')
      .max(256 * 1024, 'is longer than 256 KiB')
      .refine(noNul, 'must not contain NUL')
      .describe('One bash command line (bash -c): pipes, &&, redirections and quotes as in bash. It runs in a sandbox that sees your workspace.'),
    cwd: z
      .string()
      .min(1, 'must not be empty')
      .max(4096)
      .refine(noNul, 'must not contain NUL')
      .optional()
      .describe('Where it runs, relative to the workspace root (default: where the last command of this session ended, after any cd).'),
    timeoutSeconds: z
      .number()
      .positive()
      .max(24 * 3600)
      .optional()
      .describe("Stop the command after this many seconds (capped at the agent's limit; default: that limit).")
  })
  .strict()

/** A validated `run_command` input. */
export type RunCommandInput = z.infer<typeof runCommandInputSchema>

/** What `run_command` returns in `data`: the whole bounded output, exit code, and where the session now is. */
export type RunCommandData = Omit<CommandResult, 'timedOut' | 'cancelled' | 'limitHit'> & {
  /** The session's directory after the call, relative to the workspace (`.` for its root). */
  cwd: string
}

/** A `run_command` refusal before anything ran (a `cwd` outside the workspace). */
export class RunCommandError extends AirlockError<'run_command.cwd_refused'> {}

/**
 * `run_command` (SPEC §5.3): one shell command line (`bash -c`) in the session's warm shell
 * resource, ensured through the agent's provider order. Status: `success` whenever the command
 * ran to its end, whatever its exit code (a failing test is a completed command: the agent reads
 * `exitCode` and `stderr` in `data`, and a diagnostic names a non-zero exit); `timed_out` at the
 * deadline (the call's `timeoutSeconds`, capped at the profile's limit); `cancelled` when the
 * call's signal aborts (it reaches the process or container); `error` when a resource limit ended
 * it or nothing could run it. `data` carries the output in every case where something ran.
 * `cwd` is taken from the workspace root; the directory the shell ends in becomes the session's
 * (see `SessionDirectories`). With the host `bash` runner (no shell: allowlisted read-only
 * programs) the command runs as given and only `cwd` moves the session.
 * A factory: each instance keeps its sessions' directories.
 */
export function createRunCommandAction(kept?: SessionDirectoryStore): ActionSpec<typeof runCommandInputSchema> {
  const directories = new SessionDirectories(kept)
  return {
    name: 'run_command',
    description:
      'Run a shell command line in your workspace (bash -c, sandboxed). Returns stdout, stderr, exitCode, durationMs and truncation flags; ' +
      'a non-zero exitCode is reported, not an error of the call. The working directory persists across calls of this session (cd works); ' +
      'cwd is relative to the workspace root.',
    inputSchema: runCommandInputSchema,
    effects: 'execute',
    summarize: (input) => (input.cwd ? `(in ${input.cwd}) ` : '') + input.command,
    // A session that moved (`cd sub` in an earlier call) runs the next command there: say so in the input.
    resolveInput: ({ input, agent }) => {
      const moved = directories.get(agent.sessionId)
      if (input.cwd !== undefined || moved === '') return input
      // A directory that went away is not named: the run starts at the root and says why.
      return 'relative' in workspaceDirectory(realpathSync(agent.workspace), moved) ? { ...input, cwd: moved } : input
    },
    executor: { execute: (context) => runCommand(context, directories) }
  }
}

async function runCommand(context: ActionContext<RunCommandInput>, directories: SessionDirectories): Promise<ActionOutcome> {
  const { agent, input } = context
  const diagnostics = executionDiagnostics(agent.profile)
  const workspace = realpathSync(agent.workspace)
  const requested = input.cwd === undefined ? undefined : workspaceDirectory(workspace, input.cwd)
  if (requested && 'refused' in requested) throw new RunCommandError('run_command.cwd_refused', `cwd ${JSON.stringify(input.cwd)} ${requested.refused}.`)
  let shell: ResourceHandle
  try {
    shell = await context.holdForSession(shellRequirement(agent, context.hiddenPaths))
  } catch (error) {
    return selectionFailure(error, diagnostics)
  }
  const provider = providerFacts(shell)
  recordNetworkUse(context)
  const hidden = context.hiddenPaths ?? []
  if (hidden.length > 0) {
    diagnostics.push(
      `hidden from this command (labelled above what this session has read): ${hidden.join(', ')}; a command that names one is decided as a labelled read and, if it runs, sees it`
    )
  }
  const start = requested ?? sessionDirectory(workspace, directories.get(agent.sessionId), diagnostics)
  const limit = agent.profile.limits.timeoutSeconds
  const timeoutSeconds = Math.min(input.timeoutSeconds ?? limit, limit)
  if (input.timeoutSeconds !== undefined && input.timeoutSeconds > limit) diagnostics.push(`timeoutSeconds was capped at ${limit} s (the agent's limit)`)
  // The host runner has no shell: nothing to report a directory, and `cd` is not one of its programs.
  const marker = shell.providerId === 'bash' ? undefined : cwdMarker()
  if (marker) context.hideOutput?.(marker)
  let result: CommandResult
  try {
    result = await (shell.resource as CommandRunner).run({
      command: marker ? withCwdReport(input.command, marker) : input.command,
      cwd: start.absolute,
      timeoutSeconds,
      // Within one second, an edited module of the same size looks unchanged to Python's bytecode
      // cache, and a rerun in the write / run / fix loop would run the old code: no .pyc files.
      // (The host runner takes only presentation variables, and runs no Python.)
      ...(shell.providerId === 'bash' ? {} : { env: { PYTHONDONTWRITEBYTECODE: '1' } }),
      signal: context.signal,
      onOutput: context.output
    })
  } catch (error) {
    const code = error instanceof AirlockError ? error.code : 'run_command.failed'
    return { status: 'error', error: { code, message: (error as Error).message }, meta: { provider }, diagnostics }
  }
  recordEgress(context, result.egress)
  let stdout = result.stdout
  let cwd = start.relative
  if (marker) {
    const report = takeCwdReport(stdout, marker, result.stdoutTruncated)
    stdout = report.stdout
    const moved = report.reported === undefined ? undefined : workspaceDirectory(workspace, report.reported)
    if (moved && 'relative' in moved) cwd = moved.relative
    else if (moved) diagnostics.push(`the shell ended in ${JSON.stringify(report.reported)}, which ${moved.refused}: the session stays in ${shown(cwd)}`)
    else if (!result.cancelled)
      diagnostics.push(
        `the shell did not report its final directory (output truncated, the shell replaced, or the run ended early): the session stays in ${shown(cwd)}`
      )
  }
  directories.set(agent.sessionId, cwd)
  const data: RunCommandData = {
    stdout,
    stderr: result.stderr,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    stdoutTruncated: result.stdoutTruncated,
    stderrTruncated: result.stderrTruncated,
    cwd: shown(cwd)
  }
  const outputCap = agent.profile.limits.outputBytes
  if (result.stdoutTruncated || result.stderrTruncated) diagnostics.push(`output was cut at ${outputCap} bytes per stream (the agent's output limit)`)
  const base = { data, meta: { provider, timeoutSeconds }, diagnostics }
  if (result.cancelled) return { ...base, status: 'cancelled', error: { code: 'cancelled', message: 'The command was cancelled; it was ended.' } }
  if (result.timedOut)
    return { ...base, status: 'timed_out', error: { code: 'timed_out', message: `The command did not finish within ${timeoutSeconds} s; it was ended.` } }
  if (result.limitHit)
    return { ...base, status: 'error', error: { code: `resource_limit.${result.limitHit}`, message: `The command was ended by the ${result.limitHit} limit.` } }
  if (result.exitCode !== 0) diagnostics.push(`the command exited with code ${result.exitCode}`)
  return { ...base, status: 'success' }
}

/** Where a call without `cwd` starts: the session's directory, or the workspace root again if it is gone. */
function sessionDirectory(workspace: string, session: string, diagnostics: string[]): { relative: string; absolute: string } {
  const current = workspaceDirectory(workspace, session)
  if ('relative' in current) return current
  diagnostics.push(`the session's directory ${shown(session)} ${current.refused}: starting at the workspace root`)
  return { relative: '', absolute: workspace }
}

function shown(relativePath: string): string {
  return relativePath === '' ? '.' : relativePath
}
