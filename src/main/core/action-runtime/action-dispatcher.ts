import { randomUUID } from 'node:crypto'
import { describeIssues } from '@shared/agents'
import type { ExecutionResourceManager } from '../manager'
import type { ApprovalDecision } from '../policy-approval'
import type { ResourceHandle, ResourceRequirementInput } from '../types'
import { ActionHooks, type PreToolCallDecision } from './action-hooks'
import type { ActionHistory } from './action-history'
import { toolEnabled, type ActionRegistry } from './action-registry'
import type { ActionAgent, ActionCall, ActionContext, ActionOutcome, ActionResult, ActionStatus, AnyActionSpec } from './action-spec'
import { failure, finalResult, isAgentAbort, type AbortReason } from './call-outcome'
import { LiveOutput } from './live-output'
import { redactText, redactValue } from './redaction'
import { SessionHolds } from './session-holds'
import { callEnd, summaryStringBytes, type ApprovalOutcome, type Trace } from './call-record'
import { approvalRequest, type ApprovalAsked } from './approval-request'

/** Whether an agent may still act: checked before a call, after its approval and before it runs. */
export type AgentGate = (agentId: string) => 'enabled' | 'disabled' | 'removed'

/** What the dispatcher is built from. Only the manager and the registry are required. */
export type ActionDispatcherOptions = {
  manager: ExecutionResourceManager
  registry: ActionRegistry
  hooks?: ActionHooks
  history?: ActionHistory
  agentGate?: AgentGate
  /** The approval handler asked when a hook says `ask` (default: the approval registry's default). */
  approvalHandler?: string
  /**
   * Setting `access_control_policy.auto_allow` (SPEC §3.6): approves what would ask the operator.
   * It never turns a `deny` (denylist, boundaries) into anything else.
   */
  autoAllow?: () => boolean
  sessions?: SessionHolds
}

/** A call id: a UUID from the caller or the dispatcher (execution areas are found by it, so it must not be guessable). */
const callIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * Executes action calls (SPEC §5.1): resolve the spec → validate the input → PRE_TOOL_CALL hooks →
 * approval → ensure the spec's resources (a partial ensure rolls back) → executor → release the
 * `action_call` handles (a failed release turns success into `error`) → POST_TOOL_RESPONSE hooks →
 * `ActionResult` → history. Every call gets a history row that exists as `running` before anything
 * runs. Cancellation (the call's AbortSignal, or the agent being disabled) reaches the executor.
 */
export class ActionDispatcher {
  readonly hooks: ActionHooks
  readonly sessions: SessionHolds
  private readonly inFlight = new Map<string, { agentId: string; controller: AbortController; trace: Trace; secrets: readonly string[] }>()
  /** What the calls in flight print, as it arrives (streamed to the console; the last line quoted by progress). */
  readonly liveOutput = new LiveOutput()

  constructor(private readonly options: ActionDispatcherOptions) {
    this.hooks = options.hooks ?? new ActionHooks()
    this.sessions = options.sessions ?? new SessionHolds(options.manager)
  }

  /** Runs one call to its end; never throws (every failure is a result with a status and an error). */
  async execute(call: ActionCall): Promise<ActionResult> {
    const callId = call.callId ?? randomUUID()
    const started = performance.now()
    if (!callIdPattern.test(callId))
      return finalResult({ status: 'error', error: { code: 'invalid_input', message: 'callId must be a lowercase UUID' } }, callId, 0)
    const secrets = call.agent.secrets ?? []
    try {
      this.options.history?.begin({
        callId,
        agentId: call.agent.agentId,
        sessionId: call.agent.sessionId,
        // The tool name is the agent's text until it is resolved (`server__<anything>`).
        tool: redactText(call.tool, secrets),
        inputSummary: redactValue(call.input, { secrets, maxStringBytes: summaryStringBytes }),
        startedAt: new Date().toISOString()
      })
    } catch (error) {
      // Nothing runs unrecorded.
      return finalResult(
        { status: 'error', error: { code: 'history_unavailable', message: `the call was not run: history could not record it (${(error as Error).message})` } },
        callId,
        0
      )
    }
    const controller = new AbortController()
    const forward = () => controller.abort(call.signal?.reason)
    if (call.signal?.aborted) forward()
    else call.signal?.addEventListener('abort', forward, { once: true })
    const trace: Trace = { lineage: [] }
    this.inFlight.set(callId, { agentId: call.agent.agentId, controller, trace, secrets })
    let result: ActionResult
    try {
      result = await this.run(call, callId, controller.signal, trace)
    } catch (error) {
      result = finalResult(failure(error, controller.signal), callId, performance.now() - started)
    } finally {
      this.inFlight.delete(callId)
      this.liveOutput.end(callId)
      call.signal?.removeEventListener('abort', forward)
    }
    result.meta.durationMs = Math.round(performance.now() - started)
    this.record(callId, result, trace, secrets)
    return result
  }

  /**
   * Aborts every call of an agent in flight (it was disabled or removed): they end `blocked`.
   * Returns how many were aborted.
   */
  cancelAgent(agentId: string, why: 'agent_disabled' | 'agent_removed'): number {
    let count = 0
    for (const { agentId: owner, controller } of this.inFlight.values()) {
      if (owner !== agentId) continue
      controller.abort({ airlock: why } satisfies AbortReason)
      count += 1
    }
    return count
  }

  /**
   * The operator cancels one call in flight: it ends `cancelled` as the agent's own cancellation
   * would (its runner stops it the same way), and its error says the operator did it. False when
   * the call is not in flight (it ended already).
   */
  cancel(callId: string): boolean {
    const entry = this.inFlight.get(callId)
    entry?.controller.abort({ airlock: 'operator_cancelled' } satisfies AbortReason)
    return entry !== undefined
  }

  /**
   * What is decided so far about a call in flight, redacted as history records it (the parsed
   * commands quote what the agent typed): the policy decision, and the approval once answered;
   * undefined when it is not in flight.
   */
  decided(callId: string): { policy?: PreToolCallDecision; approval?: ApprovalOutcome } | undefined {
    const entry = this.inFlight.get(callId)
    if (!entry) return undefined
    const { policy, approval } = entry.trace
    return redactValue({ ...(policy ? { policy } : {}), ...(approval ? { approval } : {}) }, { secrets: entry.secrets }) as {
      policy?: PreToolCallDecision
      approval?: ApprovalOutcome
    }
  }

  /** Calls in flight now, by id. */
  running(): string[] {
    return [...this.inFlight.keys()]
  }

  /**
   * What a call meets before anything runs, in the order `execute` checks it: the agent's gate,
   * the tool, the agent's capabilities, the input, the PRE_TOOL_CALL hooks (the policy). Runs,
   * records and asks nothing: `airlock policy check` reads the same order a call goes through.
   * An `ask` that `access_control_policy.auto_allow` would approve says so (`autoAllowed`).
   */
  async check(call: ActionCall): Promise<CallCheck> {
    const admitted = await this.admit(call, call.callId ?? randomUUID(), { lineage: [] })
    if ('refused' in admitted) return { refused: admitted.refused }
    const { decision } = admitted
    return { decision, autoAllowed: decision.decision === 'ask' && this.options.autoAllow?.() === true }
  }

  /** The checks before approval (see `check`): a refusal, or the spec, the resolved input and the policy's decision. */
  private async admit(
    call: ActionCall,
    callId: string,
    trace: Trace
  ): Promise<{ refused: ActionOutcome } | { spec: AnyActionSpec; input: unknown; decision: PreToolCallDecision }> {
    const gate = this.gate(call.agent)
    if (gate) return { refused: gate }
    const spec = this.options.registry.resolve(call.tool)
    if (!spec) return { refused: { status: 'error', error: { code: 'unknown_tool', message: `There is no tool named ${JSON.stringify(call.tool)}.` } } }
    if (!toolEnabled(call.agent.tools, spec.name)) {
      const policy = { decision: 'deny' as const, rule: 'capability.not_enabled', reason: `the agent's capabilities do not include ${spec.name}` }
      trace.policy = policy
      return {
        refused: {
          status: 'blocked',
          meta: { policy },
          error: { code: 'policy.blocked', message: `${spec.name} is not enabled for agent ${call.agent.agentId}.` }
        }
      }
    }
    const parsed = spec.inputSchema.safeParse(call.input)
    if (!parsed.success)
      return { refused: { status: 'error', error: { code: 'invalid_input', message: `Invalid input for ${spec.name}: ${describeIssues(parsed.error)}.` } } }
    const resolved = spec.resolveInput ? spec.inputSchema.safeParse(spec.resolveInput({ input: parsed.data, agent: call.agent })) : parsed
    if (!resolved.success)
      return {
        refused: {
          status: 'error',
          error: { code: 'invalid_input', message: `Invalid input for ${spec.name} in this session: ${describeIssues(resolved.error)}.` }
        }
      }
    const input: unknown = resolved.data
    const decision = await this.hooks.decide({ callId, tool: spec.name, input, agent: call.agent, spec })
    trace.policy = decision
    if (decision.decision === 'deny') {
      return {
        refused: {
          status: 'blocked',
          meta: { policy: decision },
          error: { code: 'policy.blocked', message: decision.reason ?? `Blocked by ${decision.rule ?? 'policy'}.` }
        }
      }
    }
    return { spec, input, decision }
  }

  private async run(call: ActionCall, callId: string, signal: AbortSignal, trace: Trace): Promise<ActionResult> {
    const started = performance.now()
    const elapsed = () => performance.now() - started
    const admitted = await this.admit(call, callId, trace)
    if ('refused' in admitted) return finalResult(admitted.refused, callId, elapsed())
    const { spec, input, decision } = admitted
    if (decision.decision === 'ask' || spec.approval === 'always') {
      const approval = await this.approve({ call, callId, spec, input, decision, signal })
      trace.approval = approval
      // A call cancelled (or whose agent was disabled) while it waited ends as that, whatever was decided.
      if (signal.aborted) return finalResult({ ...failure(signal.reason, signal), meta: { policy: decision, approval } }, callId, elapsed())
      if (approval.status !== 'approved') {
        const status: ActionStatus = approval.status === 'pending' ? 'approval_required' : 'blocked'
        return finalResult(
          {
            status,
            meta: { policy: decision, approval },
            error: { code: status === 'blocked' ? 'approval.denied' : 'approval.pending', message: approval.reason }
          },
          callId,
          elapsed()
        )
      }
      const after = this.gate(call.agent)
      if (after) return finalResult(after, callId, elapsed())
    }
    if (signal.aborted) return finalResult(failure(signal.reason, signal), callId, elapsed())
    const outcome = await this.withResources(spec, call, callId, input, signal, trace)
    const result = finalResult(
      { ...outcome, meta: { policy: decision, ...(trace.approval ? { approval: trace.approval } : {}), ...outcome.meta } },
      callId,
      elapsed()
    )
    return this.hooks.respond({ callId, tool: spec.name, input, agent: call.agent, spec, result })
  }

  /** Ensures the spec's resources, runs the executor, and releases the call's own handles. */
  private async withResources(
    spec: AnyActionSpec,
    call: ActionCall,
    callId: string,
    input: unknown,
    signal: AbortSignal,
    trace: Trace
  ): Promise<ActionOutcome> {
    const declared =
      typeof spec.executionResources === 'function' ? spec.executionResources({ input, agent: call.agent, callId }) : (spec.executionResources ?? {})
    const resources: Record<string, unknown> = {}
    const handles: Record<string, ResourceHandle> = {}
    const ownHandles: ResourceHandle[] = []
    let outcome: ActionOutcome
    let afterRun: Awaited<ReturnType<ActionHooks['aroundRun']>> | undefined
    try {
      for (const [name, requirement] of Object.entries(declared)) {
        const handle = await this.ensureFor(requirement, call, callId, signal)
        if (handle.scope !== 'session') ownHandles.push(handle)
        handles[name] = handle
        resources[name] = handle.resource
      }
      const context: ActionContext = {
        callId,
        tool: spec.name,
        input,
        agent: call.agent,
        manager: this.options.manager,
        resources,
        handles,
        signal,
        holdForSession: (requirement) => this.sessions.hold(call.agent.sessionId, requirement, signal),
        touched: (endpoint) => trace.lineage.push(endpoint),
        hiddenPaths: trace.policy?.hiddenPaths ?? [],
        output: this.liveOutput.begin(callId, call.agent.secrets ?? []),
        hideOutput: (text) => this.liveOutput.hide(callId, text)
      }
      // Before the run: what must be in place first (the workspace's checkpoint); a throw stops the call with its code.
      afterRun = await this.hooks.aroundRun({ callId, tool: spec.name, input, agent: call.agent, spec, ...(trace.policy ? { decision: trace.policy } : {}) })
      const stopWatching = this.hooks.running({ callId, tool: spec.name, input, agent: call.agent, spec }, (stop) =>
        this.inFlight.get(callId)?.controller.abort({ airlock: 'stopped', stop } satisfies AbortReason)
      )
      try {
        outcome = signal.aborted ? failure(signal.reason, signal) : await spec.executor.execute(context)
      } finally {
        stopWatching()
      }
      if (signal.aborted && (outcome.status ?? 'success') === 'success') outcome = failure(signal.reason, signal)
      else if (isAgentAbort(signal.reason)) outcome = { ...outcome, ...failure(signal.reason, signal), data: outcome.data }
    } catch (error) {
      outcome = failure(error, signal)
    }
    const releaseErrors: string[] = []
    for (const handle of ownHandles.reverse()) {
      try {
        await this.options.manager.release(handle)
      } catch (error) {
        releaseErrors.push((error as Error).message)
      }
    }
    if (releaseErrors.length > 0 && (outcome.status ?? 'success') === 'success') {
      outcome = {
        ...outcome,
        status: 'error',
        error: {
          code: 'execution_resource.release_failed',
          message: `completed, but its execution resource could not be released safely: ${releaseErrors.join('; ')}`
        }
      }
    }
    if (afterRun) {
      const added = await afterRun({ status: outcome.status ?? 'success' })
      if (Object.keys(added.meta).length > 0) outcome = { ...outcome, meta: { ...outcome.meta, ...added.meta } }
      if (added.diagnostics.length > 0) outcome = { ...outcome, diagnostics: [...(outcome.diagnostics ?? []), ...added.diagnostics] }
    }
    return outcome
  }

  private ensureFor(requirement: ResourceRequirementInput, call: ActionCall, callId: string, signal: AbortSignal): Promise<ResourceHandle> {
    if (requirement.scope === 'session') return this.sessions.hold(call.agent.sessionId, requirement, signal)
    const scope = requirement.scope ?? 'action_call'
    const ownerId = requirement.ownerId ?? (scope === 'action_call' ? callId : call.agent.agentId)
    return this.options.manager.ensure({ ...requirement, scope, ownerId, actionCallId: callId }, { scope, ownerId, signal })
  }

  /** Asks the approval handler (the operator's queue in the application) about a call; returns the decision as recorded in `meta.approval`. */
  private async approve(waiting: ApprovalAsked): Promise<ApprovalOutcome> {
    if (this.options.autoAllow?.() === true) return { status: 'approved', reason: 'access_control_policy.auto_allow' }
    const { callId } = waiting
    const request = await approvalRequest(waiting)
    // The wait is its own state in history (`waiting_approval`) and its own duration: the run's excludes it.
    const asked = performance.now()
    this.tellWaiting(callId, new Date().toISOString())
    let answer: ApprovalDecision
    try {
      answer = await this.options.manager.approval.resolve(request, this.options.approvalHandler ? { handler: this.options.approvalHandler } : {})
    } finally {
      this.tellWaiting(callId, null)
    }
    return {
      status: answer.status,
      reason: answer.reason,
      waitedMs: Math.round(performance.now() - asked),
      ...(answer.approvalId ? { approvalId: answer.approvalId } : {}),
      ...(answer.ruleId ? { ruleId: answer.ruleId } : {}),
      ...(answer.scope ? { scope: answer.scope } : {})
    }
  }

  private tellWaiting(callId: string, since: string | null): void {
    try {
      this.options.history?.waiting?.(callId, since)
    } catch {
      // Only the live state is lost: the wait is still measured and recorded with the call's end.
    }
  }

  private gate(agent: ActionAgent): ActionOutcome | undefined {
    const state = this.options.agentGate?.(agent.agentId) ?? 'enabled'
    if (state === 'enabled') return undefined
    return {
      status: 'blocked',
      error: { code: `policy.${state === 'disabled' ? 'agent_disabled' : 'agent_removed'}`, message: `Agent ${agent.agentId} is ${state}.` }
    }
  }

  private record(callId: string, result: ActionResult, trace: Trace, secrets: readonly string[]): void {
    const end = callEnd(callId, result, trace, secrets)
    try {
      this.options.history?.finish(end)
    } catch {
      // The row stays `running` and becomes `interrupted` at the next start: the call's result stands.
      result.diagnostics.push('history could not record the end of this call')
    }
  }
}

/** What `check` found: the refusal a call would end with, or the policy's decision (and whether auto-allow approves an `ask`). */
export type CallCheck = { refused: ActionOutcome } | { decision: PreToolCallDecision; autoAllowed: boolean }
