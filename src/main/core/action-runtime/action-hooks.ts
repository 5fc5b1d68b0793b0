import type { ActionAgent, ActionResult, AnyActionSpec } from './action-spec'

/** What a PRE_TOOL_CALL hook decides: let it run, block it, or ask the operator; with the rule that decided. */
export type PreToolCallDecision = {
  decision: 'allow' | 'deny' | 'ask'
  /** The rule that decided (shown to the operator and the agent, kept in history). */
  rule?: string
  reason?: string
  /** Risk flags for the operator (network, package install, deletion...). */
  riskFlags?: string[]
  /** The simple commands a command line would run, as parsed (for the operator; never re-parsed). */
  commands?: string[][]
  /** For a file write: the command lines it plants where something runs them later, analysed like commands. */
  planted?: { where: string; line: string; commands: string[][]; riskFlags: string[]; verdict: 'run' | 'ask' | 'blocked'; rule?: string }[]
  /** The session's taint when the call was decided, and after it ran (SPEC §6.3). */
  taint?: string
  taintAfter?: string
  /** The classification of what the call reads and of where it sends data, when labelled. */
  classification?: { reads?: string; sink?: string }
  /**
   * Workspace paths labelled above what this call may read (the session's taint and what the call
   * itself names and was let read): its sandbox hides them. Absent: nothing to hide.
   */
  hiddenPaths?: string[]
  /**
   * Workspace paths (components) a deletion in this call may remove without asking because the
   * checkpoint keeps them (flag `recoverable_deletion`); the checkpoint checks them again just
   * before the run and stops the call if it no longer can.
   */
  recoverablePaths?: string[][]
}

/** What a PRE_TOOL_CALL hook sees: the validated call, never a live resource. */
export type PreToolCallEvent = { callId: string; tool: string; input: unknown; agent: ActionAgent; spec: AnyActionSpec }

/** What a POST_TOOL_RESPONSE hook sees: the call and its result, which it may replace (classify, redact). */
export type PostToolResponseEvent = PreToolCallEvent & { result: ActionResult }

/**
 * PRE_TOOL_CALL: may block, require approval, or allow; returning nothing abstains. It decides
 * policy only: it cannot rewrite the input. A hook that throws blocks the call (fail closed).
 */
export type PreToolCallHook = (event: PreToolCallEvent) => PreToolCallDecision | undefined | Promise<PreToolCallDecision | undefined>

/** POST_TOOL_RESPONSE: sees the result and may return a replacement (redacted, classified). */
export type PostToolResponseHook = (event: PostToolResponseEvent) => ActionResult | undefined | Promise<ActionResult | undefined>

/** Why a watcher stopped a running call: the call ends `error` with this code and message, its output kept. */
export type RunStop = { code: string; message: string }

/**
 * WHILE_RUNNING: told when a call's executor starts, with `stop` to end it (a limit that must hold
 * during the run, not be found broken after it); returns what to do when the executor is done.
 */
export type RunningHook = (event: PreToolCallEvent & { stop(reason: RunStop): void }) => (() => void) | undefined

/**
 * AROUND_RUN: awaited just before a call's executor starts (after approval, with its resources
 * ready); returns what to do when the executor and the release are done, which may add to the
 * result's `meta` and `diagnostics`. A hook that throws before the run stops the call (`error`,
 * its code and message): workspace checkpoints use it, and a call whose changes could not be kept
 * must not run as if they were.
 */
export type AroundRunHook = (
  event: PreToolCallEvent & { decision?: PreToolCallDecision }
) => Promise<((outcome: { status: string }) => Promise<{ meta?: Record<string, unknown>; diagnostics?: string[] } | undefined>) | undefined>

/** The hook points of the dispatcher (SPEC §6.3). The policy engine registers itself here. */
export class ActionHooks {
  private readonly pre: PreToolCallHook[] = []
  private readonly post: PostToolResponseHook[] = []
  private readonly whileRunning: RunningHook[] = []
  private readonly around: AroundRunHook[] = []

  /** Adds a PRE_TOOL_CALL hook; returns its disposer. Hooks run in registration order. */
  onPreToolCall(hook: PreToolCallHook): () => void {
    return add(this.pre, hook)
  }

  /** Adds a POST_TOOL_RESPONSE hook; returns its disposer. */
  onPostToolResponse(hook: PostToolResponseHook): () => void {
    return add(this.post, hook)
  }

  /** Adds a WHILE_RUNNING hook; returns its disposer. */
  onRunning(hook: RunningHook): () => void {
    return add(this.whileRunning, hook)
  }

  /** Adds an AROUND_RUN hook; returns its disposer. */
  onAroundRun(hook: AroundRunHook): () => void {
    return add(this.around, hook)
  }

  /**
   * Runs every AROUND_RUN hook's start, in order (a throw propagates: the call does not run, and
   * the hooks already started are ended); returns the function that ends them all after the run.
   */
  async aroundRun(
    event: PreToolCallEvent & { decision?: PreToolCallDecision }
  ): Promise<(outcome: { status: string }) => Promise<{ meta: Record<string, unknown>; diagnostics: string[] }>> {
    const ends: NonNullable<Awaited<ReturnType<AroundRunHook>>>[] = []
    const endAll = async (outcome: { status: string }) => {
      const meta: Record<string, unknown> = {}
      const diagnostics: string[] = []
      for (const end of ends) {
        try {
          const added = await end(outcome)
          Object.assign(meta, added?.meta)
          diagnostics.push(...(added?.diagnostics ?? []))
        } catch (error) {
          diagnostics.push(`after the run: ${(error as Error).message}`)
        }
      }
      return { meta, diagnostics }
    }
    for (const hook of [...this.around]) {
      try {
        const end = await hook(event)
        if (end) ends.push(end)
      } catch (error) {
        await endAll({ status: 'error' })
        throw error
      }
    }
    return endAll
  }

  /** Starts every WHILE_RUNNING hook for a call about to run; returns what ends them. A hook that throws is skipped (it watches; it does not decide). */
  running(event: PreToolCallEvent, stop: (reason: RunStop) => void): () => void {
    const ends: (() => void)[] = []
    for (const hook of [...this.whileRunning]) {
      try {
        const end = hook({ ...event, stop })
        if (end) ends.push(end)
      } catch {
        // A watcher that cannot start watches nothing; the after-run checks still apply.
      }
    }
    return () => {
      for (const end of ends) end()
    }
  }

  /**
   * Runs every PRE_TOOL_CALL hook: the first `deny` wins; else any `ask` asks (its risk flags
   * merged); else the call runs. A throwing hook denies, naming itself.
   */
  async decide(event: PreToolCallEvent): Promise<PreToolCallDecision> {
    let ask: PreToolCallDecision | undefined
    // Why an allowed call runs anyway (a flag its ask mode lets through): the first hook that says so.
    let allowedBecause: string | undefined
    const riskFlags = new Set<string>()
    // What hooks said beyond the verdict (parsed commands, taint) is kept whatever decides.
    let facts: Omit<PreToolCallDecision, 'decision' | 'rule' | 'reason' | 'riskFlags'> = {}
    for (const hook of [...this.pre]) {
      let decision: PreToolCallDecision | undefined
      try {
        decision = await hook(event)
      } catch (error) {
        return { decision: 'deny', rule: 'policy.hook_failed', reason: `a policy hook failed, so the call is blocked: ${(error as Error).message}` }
      }
      if (!decision) continue
      const { decision: verdict, rule: _rule, reason: _reason, riskFlags: flags, ...more } = decision
      facts = { ...facts, ...more }
      for (const flag of flags ?? []) riskFlags.add(flag)
      if (verdict === 'deny') return { ...facts, ...decision, riskFlags: [...riskFlags] }
      if (verdict === 'ask') ask ??= decision
      if (verdict === 'allow') allowedBecause ??= decision.reason
    }
    if (ask) return { ...facts, ...ask, riskFlags: [...riskFlags] }
    return { ...facts, decision: 'allow', ...(allowedBecause ? { reason: allowedBecause } : {}), riskFlags: [...riskFlags] }
  }

  /** Runs every POST_TOOL_RESPONSE hook in order; a throwing hook turns the result into an error. */
  async respond(event: PostToolResponseEvent): Promise<ActionResult> {
    let result = event.result
    for (const hook of [...this.post]) {
      try {
        result = (await hook({ ...event, result })) ?? result
      } catch (error) {
        return {
          ...result,
          ok: false,
          status: 'error',
          data: undefined,
          error: { code: 'policy.hook_failed', message: `a response hook failed: ${(error as Error).message}` }
        }
      }
    }
    return result
  }
}

function add<T>(list: T[], item: T): () => void {
  list.push(item)
  return () => {
    const index = list.indexOf(item)
    if (index >= 0) list.splice(index, 1)
  }
}
