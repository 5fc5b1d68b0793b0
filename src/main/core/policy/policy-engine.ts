import { allowsUnsafeFallback, higherClassification, type Classification, type ClassificationLabels } from '@shared/agents'
import type { ActionHooks, PostToolResponseEvent, PreToolCallDecision, PreToolCallEvent } from '../action-runtime/action-hooks'
import type { ActionAgent, ActionResult } from '../action-runtime/action-spec'
import { above, ClassificationLabelSet } from './classification'
import { informationalFlags } from './command-rules-risk'
import type { CommandAnalyzer } from './shell'
import { labelledEntries, LabelWalkError } from './labelled-paths'
import { assessToolCall, readsOfResult, type ToolAssessment } from './tool-assessment'

/** Where sessions keep their taint (the store's sessions table): read at every decision, written at once. */
export type TaintLedger = {
  taint(sessionId: string): Classification
  raiseTaint(sessionId: string, level: Classification): Classification
}

/** What the engine is built from. */
export type PolicyEngineOptions = {
  /** The command analyzer (loaded once; a failure to load blocks every call that needs it: fail closed). */
  analyzer: () => Promise<CommandAnalyzer>
  taint: TaintLedger
  /** The global labels (setting `policy.labels`), read at every call so a change applies at once. */
  globalLabels?: () => ClassificationLabels
  /** Whether a call is still in flight (the dispatcher's `running()`): prunes the sink calls the engine tracks. */
  isRunning?: (callId: string) => boolean
  /**
   * Whether deleting a workspace path (components) of the agent's could be undone from its
   * checkpoints (issue 28): such a deletion flags `recoverable_deletion`, which does not ask.
   * Unset: every deletion outside scratch/ asks under `on_risk`.
   */
  recoverable?: (agentId: string, segments: readonly string[], options?: { glob?: boolean }) => boolean
}

/**
 * The built-in policy (SPEC §6.3), installed as the dispatcher's PRE_TOOL_CALL and
 * POST_TOOL_RESPONSE hooks. Every decision is a function of the validated input, the agent's
 * profile, the labels and the session's stored taint: nothing the model says can change it, and
 * each one names the rule that decided.
 *
 * PRE_TOOL_CALL, strongest first: a denylisted command → deny; a line that cannot be analysed →
 * ask (`never`: deny); reading data labelled above the agent's `classificationCeiling` → ask
 * (`classification.above_ceiling`; `never`: deny); sending to a sink labelled below the session's
 * taint → ask (`classification.write_down`; `never`: deny); a risk flag → ask under `on_risk`
 * (`risk.<flag>`); under `always` every call that writes or executes asks (`ask.always`).
 * A call that executes gets `hiddenPaths`: the workspace entries labelled above what it may read
 * (the session's taint and what the call itself names), which its sandbox does not show — so
 * what any program in it reads is what the taint says, however it spells the path.
 * POST_TOOL_RESPONSE: raises the session's taint to what the call read (never lowers it) and
 * notes taint before and after in `meta.policy`, which history keeps.
 */
export class PolicyEngine {
  /** Each call's assessment from PRE_TOOL_CALL, found again by its (validated, shared) input object. */
  private readonly assessments = new WeakMap<object, ToolAssessment>()
  /**
   * Calls with a sink (a networked execution, browse, an MCP tool) let through, by session: while
   * one runs, data the session reads now could reach it, so a labelled read above that sink asks.
   */
  private readonly sinkCalls = new Map<string, Map<string, Classification>>()

  constructor(private readonly options: PolicyEngineOptions) {}

  /** Registers the engine's hooks; returns the disposer. */
  install(hooks: ActionHooks): () => void {
    const pre = hooks.onPreToolCall((event) => this.decide(event))
    const post = hooks.onPostToolResponse((event) => this.afterCall(event))
    return () => {
      pre()
      post()
    }
  }

  /** The PRE_TOOL_CALL decision of one call. */
  async decide(event: PreToolCallEvent): Promise<PreToolCallDecision> {
    const decision = await this.decideCall(event.spec.name, event.spec.effects, event.input, event.agent, event.callId)
    const sink = decision.classification?.sink
    if (sink && decision.decision !== 'deny') {
      const calls = this.sinkCalls.get(event.agent.sessionId) ?? new Map<string, Classification>()
      calls.set(event.callId, sink as Classification)
      this.sinkCalls.set(event.agent.sessionId, calls)
    }
    return decision
  }

  /** The lowest sink among the session's calls still running (other than `callId`), if any. */
  private runningSink(sessionId: string, callId: string): Classification | undefined {
    const calls = this.sinkCalls.get(sessionId)
    if (!calls) return undefined
    let lowest: Classification | undefined
    for (const [id, sink] of calls) {
      if (this.options.isRunning && !this.options.isRunning(id)) calls.delete(id)
      else if (id !== callId && (lowest === undefined || above(lowest, sink))) lowest = sink
    }
    if (calls.size === 0) this.sinkCalls.delete(sessionId)
    return lowest
  }

  private async decideCall(tool: string, effects: 'read' | 'write' | 'execute', input: unknown, agent: ActionAgent, callId = ''): Promise<PreToolCallDecision> {
    const profile = agent.profile
    const labels = this.labelsOf(agent)
    const recoverable = this.options.recoverable
    const assessed = assessToolCall(
      tool,
      input,
      agent,
      labels,
      await this.options.analyzer(),
      recoverable && !unisolated(agent.profile) ? (segments, options) => recoverable(agent.agentId, segments, options) : undefined
    )
    if (typeof input === 'object' && input !== null) this.assessments.set(input, assessed)
    const taint = agent.sessionId === '' ? 'PUBLIC' : this.options.taint.taint(agent.sessionId)
    // What the call's sandbox hides: everything labelled above the session's taint and what this call itself reads.
    let hiddenPaths: string[] = []
    if (effects === 'execute' && !labels.empty) {
      try {
        hiddenPaths = labelledEntries(agent.workspace, labels, higherClassification(taint, assessed.reads))
      } catch (error) {
        if (!(error instanceof LabelWalkError)) throw error
        return {
          riskFlags: assessed.riskFlags,
          taint,
          decision: 'deny',
          rule: 'classification.unlisted',
          reason: `the workspace's labelled paths could not be listed, so they cannot be hidden from ${tool}: ${error.message}`
        }
      }
    }
    const facts: Omit<PreToolCallDecision, 'decision'> = {
      riskFlags: assessed.riskFlags,
      taint,
      ...(hiddenPaths.length > 0 ? { hiddenPaths } : {}),
      ...(assessed.command ? { commands: assessed.command.commands } : {}),
      ...(assessed.command?.recoverable ? { recoverablePaths: assessed.command.recoverable } : {}),
      ...(assessed.planted ? { planted: assessed.planted } : {}),
      ...(assessed.reads !== 'PUBLIC' || assessed.sink ? { classification: { reads: assessed.reads, ...(assessed.sink ? { sink: assessed.sink } : {}) } } : {})
    }
    const never = profile.ask === 'never'
    const verdict = (decision: 'deny' | 'ask', rule: string, reason: string): PreToolCallDecision => ({
      ...facts,
      decision: never && decision === 'ask' ? 'deny' : decision,
      rule,
      reason
    })
    const command = assessed.command
    if (command?.decision === 'blocked') return { ...facts, decision: 'deny', rule: command.rule ?? 'command.blocked', reason: command.reason }
    if (command?.decision === 'ask' && !command.rule?.startsWith('risk.') && command.rule !== 'ask.always')
      return verdict('ask', command.rule ?? 'command.ask', command.reason)
    if (above(assessed.reads, profile.classificationCeiling)) {
      return verdict('ask', 'classification.above_ceiling', `${tool} reads ${assessed.reads} data, above this agent's ceiling ${profile.classificationCeiling}`)
    }
    // A call that reads labelled data and can send it out (a networked command naming a secret)
    // is a write-down by itself: what it reads counts with what the session read before.
    const carried = higherClassification(taint, assessed.reads)
    // Through the egress proxy the session's taint is checked per connection; this call's own reads are not.
    const checkedPerConnection = assessed.sinkPerConnection === true && assessed.reads === 'PUBLIC'
    if (assessed.sink && above(carried, assessed.sink) && !checkedPerConnection) {
      const what = above(taint, assessed.sink) ? `this session has read ${taint} data` : `this call reads ${assessed.reads} data`
      return verdict('ask', 'classification.write_down', `${what}; ${tool} would send to a ${assessed.sink} destination (write-down)`)
    }
    const inFlight = agent.sessionId === '' ? undefined : this.runningSink(agent.sessionId, callId)
    if (inFlight && above(carried, inFlight)) {
      return verdict(
        'ask',
        'classification.write_down',
        `a call of this session that can send to a ${inFlight} destination is still running; ${tool} reads ${assessed.reads} data it could reach (write-down)`
      )
    }
    const asking = assessed.riskFlags.filter((flag) => !informationalFlags.has(flag))
    if (profile.ask === 'on_risk' && asking.length > 0) {
      const flag = asking[0]!
      return {
        ...facts,
        decision: 'ask',
        rule: command?.decision === 'ask' && command.rule ? command.rule : `risk.${flag}`,
        reason: command?.decision === 'ask' ? command.reason : riskReason(flag, tool)
      }
    }
    if (profile.ask === 'always' && effects !== 'read')
      return { ...facts, decision: 'ask', rule: 'ask.always', reason: `this agent asks before every call that writes or executes (${tool})` }
    if (assessed.riskFlags.length > 0)
      return {
        ...facts,
        decision: 'allow',
        reason: `flagged ${assessed.riskFlags.join(', ')}; runs without asking because this agent's ask mode is ${profile.ask}`
      }
    return { ...facts, decision: 'allow' }
  }

  /** POST_TOOL_RESPONSE: raises the taint to what the call read and records it on the result. */
  private async afterCall(event: PostToolResponseEvent): Promise<ActionResult> {
    const { agent, result } = event
    this.sinkCalls.get(agent.sessionId)?.delete(event.callId)
    const labels = this.labelsOf(agent)
    const before = this.options.taint.taint(agent.sessionId)
    let after = before
    if (!labels.empty) {
      const known = typeof event.input === 'object' && event.input !== null ? this.assessments.get(event.input) : undefined
      const assessed = known ?? assessToolCall(event.spec.name, event.input, agent, labels, await this.options.analyzer())
      const read = readsOfResult(event.spec.name, result.data, assessed.reads, labels, agent.workspace)
      if (above(read, before)) after = this.options.taint.raiseTaint(agent.sessionId, read)
    }
    const policy = typeof result.meta.policy === 'object' && result.meta.policy !== null ? (result.meta.policy as Record<string, unknown>) : {}
    return { ...result, meta: { ...result.meta, policy: { ...policy, taint: before, taintAfter: after } } }
  }

  private labelsOf(agent: ActionAgent): ClassificationLabelSet {
    return new ClassificationLabelSet([this.options.globalLabels?.() ?? {}, agent.profile.labels], agent.profile.mcpServers)
  }
}

function riskReason(flag: string, tool: string): string {
  const what: Record<string, string> = {
    isolation_fallback: 'may run without isolation (unsafeFallback)',
    package_install: 'installs packages',
    vcs_write: 'writes version-control files (.git, .github)',
    config_write: 'changes configuration (package.json scripts, .env, shell start-up files)',
    network: 'uses the network',
    deletion: 'deletes files outside scratch/',
    long_runtime: 'asks for a long runtime',
    plants_command: 'writes a command that runs later (a package script, a hook, a CI step) which would be stopped or asked about if typed'
  }
  return `${tool} ${what[flag] ?? `is flagged ${flag}`}: this agent asks on risk`
}

/**
 * Whether this agent's code may run without a sandbox (trusted_local, or an unsafe fallback to it):
 * a deletion through a link could then reach the operator's own files, which no checkpoint of the
 * workspace holds, so no deletion of such an agent is vouched for as recoverable.
 */
function unisolated(profile: ActionAgent['profile']): boolean {
  return allowsUnsafeFallback(profile) || profile.providers.includes('trusted_local') || profile.allowUnsafeLocal
}
