import { codeExecutionRequestSchema, type CodeExecutionRequest } from '@shared/code-execution'
import {
  executeCode,
  executionRequirement,
  type ActionAgent,
  type ActionContext,
  type ActionOutcome,
  type ActionSpec,
  type CodeExecutionOutcome,
  type CommandResult,
  type ExecuteCodeInput,
  type ResourceHandle
} from '../../core'
import { previewCode } from './code-preview'
import {
  executionDiagnostics,
  executionPolicy,
  orderedCandidates,
  providerFacts,
  recordEgress,
  recordNetworkUse,
  selectionFailure,
  summariseProbes,
  unsafeFallback
} from '../run_command/execution-profile'

/** One collected output as `data.outputs` lists it. */
export type RunCodeOutput = { path: string; bytes: number; sha256: string }

/** What `run_code` returns in `data` (SPEC §5.3): the last step's bounded output and exit code, the steps, the outputs. */
export type RunCodeData = Omit<CommandResult, 'timedOut'> & { outputs: RunCodeOutput[]; steps: CodeExecutionOutcome['steps'] }

/**
 * `run_code` (SPEC §5.2–5.3): a code execution request run through `executeCode` on the agent's
 * ordered `code_execution` providers, its isolation and limits, on a `snapshot` grant (the
 * program reads a copy of its bundle; it writes its own execution area). The language must be
 * one of the profile's `runtimes` when that list is set (else the call is `blocked`). The
 * session holds the same requirement `executeCode` ensures, so its resource (a warm container)
 * is reused across calls and each call's release leaves it alive. Status as for `run_command`:
 * a program that ran to its end is `success` whatever its exit code (`data.exitCode`), unless it
 * declared outputs, which a failed run does not deliver (`error`, `exit_code`); a declared output
 * not produced is `error` (`expected_output_missing`). Collected outputs are also artifacts.
 */
export const runCodeAction: ActionSpec<typeof codeExecutionRequestSchema> = {
  name: 'run_code',
  description:
    'Run a program (python, nodejs, bash, go, cpp) from sourceCode or files with an entrypoint, sandboxed. It runs in source/; ' +
    'files it writes to ../output (AIRLOCK_OUTPUT_DIR) and declares in expectedOutputs ("output/<name>") come back as artifacts.',
  inputSchema: codeExecutionRequestSchema,
  effects: 'execute',
  summarize: (input) =>
    `${input.language} ${input.entrypoint ?? 'sourceCode'}${input.files ? ` (${input.files.length} files)` : ''}${input.args?.length ? ` ${input.args.join(' ')}` : ''}`,
  // The operator approves the program, not its name: the queue shows its code, args and manifest.
  preview: ({ input }) => previewCode(input),
  executor: { execute: runCode }
}

/** Where an agent's code runs: everything of `executeCode`'s input but the request and the call. */
export function codeTarget(agent: ActionAgent): Omit<ExecuteCodeInput, 'manager' | 'request' | 'actionCallId' | 'signal'> {
  const { profile } = agent
  return {
    workspace: agent.workspace,
    isolation: { isolation: profile.isolation, ...(unsafeFallback(profile) ? { unsafeFallback: true } : {}) },
    providers: orderedCandidates(profile, { kind: 'code_execution' }),
    scope: 'session',
    ownerId: agent.sessionId,
    mode: 'snapshot',
    policy: executionPolicy(profile)
  }
}

async function runCode(context: ActionContext<CodeExecutionRequest>): Promise<ActionOutcome> {
  const { agent, input } = context
  const runtimes = agent.profile.runtimes
  if (runtimes.length > 0 && !runtimes.includes(input.language)) {
    const policy = { decision: 'deny', rule: 'runtime.not_allowed', reason: `${input.language} is not among the agent's runtimes (${runtimes.join(', ')})` }
    return { status: 'blocked', meta: { policy }, error: { code: 'policy.runtime_not_allowed', message: `run_code: ${policy.reason}.` } }
  }
  const diagnostics = executionDiagnostics(agent.profile)
  const target = codeTarget(agent)
  let held: ResourceHandle
  try {
    held = await context.holdForSession(executionRequirement(target, input.language))
  } catch (error) {
    return selectionFailure(error, diagnostics)
  }
  recordNetworkUse(context)
  const outcome = await executeCode({
    ...target,
    manager: context.manager,
    request: input,
    actionCallId: context.callId,
    installDependencies: held.meta.installDependencies === true,
    signal: context.signal,
    onOutput: context.output,
    // The session's own handle: no second ensure (and probe) or release per call.
    handle: held
  })
  recordEgress(context, outcome.result.egress)
  return toOutcome(outcome, held, input, diagnostics)
}

function toOutcome(outcome: CodeExecutionOutcome, held: ResourceHandle, input: CodeExecutionRequest, diagnostics: string[]): ActionOutcome {
  const { result } = outcome
  const data: RunCodeData = {
    stdout: result.stdout,
    stderr: result.stderr,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    stdoutTruncated: result.stdoutTruncated,
    stderrTruncated: result.stderrTruncated,
    outputs: outcome.outputs.map(({ path, bytes, sha256 }) => ({ path, bytes, sha256 })),
    steps: outcome.steps
  }
  const provider = {
    ...(outcome.provider.providerId === held.providerId
      ? providerFacts(held)
      : { providerId: outcome.provider.providerId, isolation: outcome.provider.isolation }),
    preferenceFallback: outcome.provider.preferenceFallback,
    probes: summariseProbes(outcome.provider.probes),
    bundleDigest: outcome.bundleDigest,
    executionArea: outcome.executionArea
  }
  const artifacts = outcome.outputs.map((output) => ({ name: output.path, path: output.absolutePath, bytes: output.bytes, sha256: output.sha256 }))
  if (result.stdoutTruncated || result.stderrTruncated) diagnostics.push("output was cut at the agent's output limit (per stream)")
  const base = { data, artifacts, meta: { provider }, diagnostics }
  const lastStep = outcome.steps.at(-1)?.name ?? 'run'
  if (result.limitHit)
    return {
      ...base,
      status: 'error',
      error: { code: `resource_limit.${result.limitHit}`, message: `The ${lastStep} step was ended by the ${result.limitHit} limit.` }
    }
  switch (outcome.status) {
    case 'success':
      return { ...base, status: 'success' }
    case 'timed_out':
      return {
        ...base,
        status: 'timed_out',
        error: outcome.error ?? { code: 'timed_out', message: `The ${lastStep} step did not finish in time; it was ended.` }
      }
    case 'cancelled':
      return { ...base, status: 'cancelled', error: outcome.error ?? { code: 'cancelled', message: 'The run was cancelled; it was ended.' } }
    case 'error':
      if (outcome.error?.code === 'exit_code' && (input.expectedOutputs ?? []).length === 0) {
        diagnostics.push(`the ${lastStep} step exited with code ${result.exitCode}`)
        return { ...base, status: 'success' }
      }
      if (outcome.error?.code === 'exit_code') {
        return {
          ...base,
          status: 'error',
          error: { code: 'exit_code', message: `The ${lastStep} step exited with code ${result.exitCode}, so the declared outputs were not collected.` }
        }
      }
      return { ...base, status: 'error', error: outcome.error ?? { code: 'run_code.failed', message: `The ${lastStep} step failed.` } }
  }
}
