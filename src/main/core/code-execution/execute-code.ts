import { AirlockError } from '@shared/errors'
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import type { ExecutionResourceManager } from '../manager'
import type { CommandResult, OutputListener, ProgramRunner } from '../live-resources'
import type { ResourceHandle } from '../types'
import type { CodeLanguage } from '@shared/code-execution'
import { ExecutionResourceError } from '../errors'
import { createCodeBundle, type CodeBundle } from './code-bundle'
import { codeExecutionRequirement, type CodeExecutionTarget } from './code-requirement'
import { adapterFor } from './language-adapters'
import { ensureExecutionsFolder, TaskWorkspaceGrant, type CollectedOutput } from './task-workspace'

/** How one code execution ended, with everything a result or history row needs. */
export type CodeExecutionOutcome = {
  status: 'success' | 'error' | 'timed_out' | 'cancelled'
  /** The last step's result (the run, or the build/install that failed); `egress` holds every step's connections. */
  result: CommandResult
  steps: { name: string; exitCode: number; durationMs: number }[]
  outputs: CollectedOutput[]
  bundleDigest: string
  executionArea: string
  provider: { providerId: string; isolation?: unknown; preferenceFallback: boolean; probes: unknown }
  error?: { code: string; message: string }
}

/** Inputs of `executeCode`: the request (validated here), where it runs, and under which policy. */
export type ExecuteCodeInput = Omit<CodeExecutionTarget, 'language' | 'actionCallId'> & {
  manager: ExecutionResourceManager
  request: unknown
  workspace: string
  actionCallId: string
  /** Whether the runtime profile lets declared dependencies install (docker `developer`/`ci`). */
  installDependencies?: boolean
  signal?: AbortSignal
  /** Told the program's output as it arrives. */
  onOutput?: OutputListener
  /**
   * A ready `code_execution` handle the caller already holds for exactly this run's requirement
   * (a session's warm one): used as it is, neither ensured nor released here. It must be rooted at
   * this workspace's executions folder.
   */
  handle?: ResourceHandle
}

/**
 * The provider-neutral code-execution path (SPEC §5.1–5.2) that `run_code` and `run_skill` use:
 * validate and bundle → ensure a `code_execution` handle through the ordered providers →
 * materialise the bundle in the grant's execution area → build/run steps → collect the declared
 * outputs → release the handle and close the grant.
 */
export async function executeCode(input: ExecuteCodeInput): Promise<CodeExecutionOutcome> {
  const bundle = createCodeBundle(input.request)
  const handle = input.handle
    ? heldHandle(input.handle, input.workspace)
    : await input.manager.ensure(executionRequirement(input, bundle.manifest.language), { signal: input.signal })
  const grant = new TaskWorkspaceGrant(input.workspace, input.actionCallId, input.mode)
  let outcome: CodeExecutionOutcome | undefined
  try {
    grant.materialise(bundle)
    outcome = await runSteps(input, handle, grant, bundle)
    return outcome
  } finally {
    if (!grant.closed) grant.close()
    try {
      if (!input.handle) await input.manager.release(handle)
    } catch (error) {
      if (outcome) {
        outcome.status = 'error'
        outcome.error = {
          code: 'execution_resource.release_failed',
          message: `completed, but its execution resource could not be released safely: ${(error as Error).message}`
        }
      }
    }
  }
}

/**
 * The `code_execution` requirement of a run in a workspace: the execution areas' folder is the
 * handle's root. A session that ensures the same requirement and holds it keeps the resource (a
 * warm container) alive across its calls; each call then only adds a reference.
 */
export function executionRequirement(input: Omit<ExecuteCodeInput, 'manager' | 'request' | 'actionCallId'>, language: CodeLanguage) {
  const executions = ensureExecutionsFolder(input.workspace)
  return codeExecutionRequirement({ ...input, language, policy: { ...input.policy, workspaceRoots: [executions] } })
}

/** A caller's handle, checked: a ready code-execution handle whose root is this workspace's executions folder. */
function heldHandle(handle: ResourceHandle, workspace: string): ResourceHandle {
  // The folder was made (and checked) when the caller computed the requirement it holds; its path is enough here.
  const executions = join(realpathSync(workspace), '.airlock', 'executions')
  if (handle.kind !== 'code_execution' || handle.status !== 'ready' || !(handle.policy.workspaceRoots ?? []).includes(executions)) {
    throw new ExecutionResourceError('invalid_argument', `handle ${handle.handleId} is not a ready code_execution handle for ${executions}`, {
      handleId: handle.handleId
    })
  }
  return handle
}

async function runSteps(input: ExecuteCodeInput, handle: ResourceHandle, grant: TaskWorkspaceGrant, bundle: CodeBundle): Promise<CodeExecutionOutcome> {
  const runner = handle.resource as ProgramRunner
  const bundleSteps = adapterFor(bundle.manifest.language).steps(bundle.manifest, { installDependencies: input.installDependencies === true })
  const steps: CodeExecutionOutcome['steps'] = []
  const deadline = performance.now() + (input.policy.timeoutSeconds ?? 120) * 1000
  const provider = {
    providerId: handle.providerId,
    isolation: handle.meta.isolation,
    preferenceFallback: handle.meta.preferenceFallback === true,
    probes: handle.meta.providerProbes
  }
  let result: CommandResult | undefined
  const egress: NonNullable<CommandResult['egress']> = []
  for (const step of bundleSteps) {
    result = await runner.exec({
      argv: step.argv,
      cwd: grant.area.source,
      env: { AIRLOCK_OUTPUT_DIR: grant.area.output, PYTHONDONTWRITEBYTECODE: '1', ...step.env },
      writableRoots: [grant.area.root, ...(grant.mode === 'read_write' ? [grant.workspace] : [])],
      readOnlyRoots: grant.mode === 'read_only' ? [grant.workspace] : [],
      timeoutSeconds: Math.max(0.1, (deadline - performance.now()) / 1000),
      maxOutputBytes: input.policy.maxOutputBytes,
      signal: input.signal,
      onOutput: input.onOutput
    })
    steps.push({ name: step.name, exitCode: result.exitCode, durationMs: result.durationMs })
    egress.push(...(result.egress ?? []))
    if (result.timedOut || result.cancelled || result.exitCode !== 0) break
  }
  if (egress.length > 0) result = { ...result!, egress }
  const base = { result: result!, steps, outputs: [] as CollectedOutput[], bundleDigest: bundle.digest, executionArea: grant.area.root, provider }
  if (result!.timedOut) return { ...base, status: 'timed_out' }
  if (result!.cancelled) return { ...base, status: 'cancelled' }
  if (result!.exitCode !== 0)
    return { ...base, status: 'error', error: { code: 'exit_code', message: `${steps.at(-1)!.name} exited with ${result!.exitCode}` } }
  try {
    return { ...base, status: 'success', outputs: grant.collect(bundle.manifest.expectedOutputs) }
  } catch (error) {
    return { ...base, status: 'error', error: { code: error instanceof AirlockError ? error.code : 'collect_failed', message: (error as Error).message } }
  }
}
