import { createInterface } from 'node:readline'
import type { ResourcePolicy } from './types'
import { ExecutionResourceError } from './errors'

/** What an approval handler is asked to decide. */
export type ApprovalRequest = {
  requirementId: string
  kind: string
  scope: string
  ownerId?: string
  providerId?: string
  actionCallId?: string
  /** Why approval is needed (e.g. `approvalRequired`, `approvalMode: always`). */
  reason: string
  /** One line for the person deciding. */
  summary: string
  /** For an action call: the tool, the agent and session, the rule that asked, risk flags, how long to wait. */
  tool?: string
  agentId?: string
  sessionId?: string
  rule?: string
  riskFlags?: string[]
  timeoutSeconds?: number
  /** What kind of thing asks (the queue groups and explains by it); default `resource` without a tool, else `action`. */
  approvalKind?: 'action' | 'resource' | 'write_down' | 'skill' | 'network'
  /** The call's validated input with secrets redacted: what remembered rules match on. Never re-parsed. */
  input?: unknown
  /** The simple commands a command line would run, as the policy parsed them (rules match on these). */
  commands?: string[][]
  /** Whether the policy saw the whole command line (no `command.*` concern); a rule never covers a line it could not see. */
  analysed?: boolean
  /** Classification facts of the call: what it reads, where it sends, the session's taint. */
  classification?: { reads?: string; sink?: string; taint?: string }
  /** A preview for the person deciding (a unified diff for file tools), secrets redacted. */
  preview?: string
  /** For a file write: the command lines it plants where they run later, analysed (secrets redacted). */
  planted?: { where: string; line: string; commands: string[][]; riskFlags: string[]; verdict: 'run' | 'ask' | 'blocked'; rule?: string }[]
  /**
   * The validated input before redaction, only when redaction changed it: held in memory while the
   * call waits so the operator can reveal it (one click, audited); never stored or published.
   */
  revealable?: unknown
  /** The waiting call's signal: when it aborts (cancelled, agent disabled), the handler stops waiting. */
  signal?: AbortSignal
}

/** A decision: approved, denied, or pending (nobody decided: fail closed). */
export type ApprovalDecision = {
  status: 'approved' | 'denied' | 'pending'
  reason: string
  policyOverride?: Partial<ResourcePolicy>
  /** The queue item that carried the request (the `console` handler), for history and the agent. */
  approvalId?: string
  /** The remembered rule that answered, when one did (recorded in history as `meta.approval.ruleId`). */
  ruleId?: string
  /** How far the operator's approval reaches (`once`, `session`, `rule`). */
  scope?: 'once' | 'session' | 'rule'
}

/** A handler may answer with a decision or a plain boolean (true = approved). */
export type ApprovalHandler = (request: ApprovalRequest) => ApprovalDecision | boolean | Promise<ApprovalDecision | boolean>

/** Terminal input/output for `input_timeout_fail`; injectable for tests. */
export type PromptIo = { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; interactive: boolean; timeoutMs: number }

/**
 * `input_timeout_fail`: asks on an interactive terminal and waits `timeoutMs` for y/N; denies when
 * there is no terminal, on timeout, and on anything but yes.
 */
export function createInputTimeoutHandler(io: () => PromptIo): ApprovalHandler {
  return (request) => {
    const { input, output, interactive, timeoutMs } = io()
    if (!interactive) return { status: 'denied', reason: 'no interactive terminal to ask (input_timeout_fail)' }
    return new Promise<ApprovalDecision>((resolve) => {
      const prompt = createInterface({ input, output, terminal: false })
      const timer = setTimeout(() => finish({ status: 'denied', reason: `no answer within ${timeoutMs} ms` }), timeoutMs)
      function finish(decision: ApprovalDecision) {
        clearTimeout(timer)
        prompt.close()
        resolve(decision)
      }
      output.write(`Airlock: approve ${request.summary}? [y/N] `)
      prompt.once('line', (answer) =>
        finish(
          /^\s*y(es)?\s*$/i.test(answer) ? { status: 'approved', reason: 'approved at the terminal' } : { status: 'denied', reason: 'denied at the terminal' }
        )
      )
    })
  }
}

/**
 * The registry of approval handlers (SPEC §3.6). Built in: `input_timeout_fail` (the default),
 * `fail_closed` (pending), `auto_approve`. The application registers `console` (its queue) and
 * makes it the default. A handler that throws or answers nonsense denies (fail closed).
 */
export class PolicyApproval {
  private readonly handlers = new Map<string, ApprovalHandler>()
  private defaultHandler = 'input_timeout_fail'

  constructor(options: { promptIo?: () => PromptIo } = {}) {
    const promptIo =
      options.promptIo ??
      (() => ({ input: process.stdin, output: process.stderr, interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY), timeoutMs: 60_000 }))
    this.handlers.set('input_timeout_fail', createInputTimeoutHandler(promptIo))
    this.handlers.set('fail_closed', () => ({ status: 'pending', reason: 'no one can decide (fail_closed)' }))
    this.handlers.set('auto_approve', () => ({ status: 'approved', reason: 'auto_approve' }))
  }

  /** Adds a handler; an existing name needs `{replace: true}`. Returns this. */
  registerHandler(name: string, handler: ApprovalHandler, options: { replace?: boolean } = {}): this {
    if (this.handlers.has(name) && !options.replace) {
      throw new ExecutionResourceError(
        'invalid_argument',
        `An approval handler named ${JSON.stringify(name)} is already registered; pass {replace: true} to replace it.`,
        { name }
      )
    }
    this.handlers.set(name, handler)
    return this
  }

  /** Makes a registered handler the default. */
  setDefaultHandler(name: string): this {
    if (!this.handlers.has(name))
      throw new ExecutionResourceError('invalid_argument', `No approval handler named ${JSON.stringify(name)} is registered.`, { name })
    this.defaultHandler = name
    return this
  }

  /** The name of the default handler. */
  get defaultHandlerName(): string {
    return this.defaultHandler
  }

  /** Asks a handler (named, else the default) and normalises its answer. */
  async resolve(request: ApprovalRequest, options: { handler?: string } = {}): Promise<ApprovalDecision> {
    const name = options.handler ?? this.defaultHandler
    const handler = this.handlers.get(name)
    if (!handler) return { status: 'denied', reason: `no approval handler named ${JSON.stringify(name)}` }
    try {
      const answer = await handler(request)
      if (answer === true) return { status: 'approved', reason: name }
      if (answer === false) return { status: 'denied', reason: name }
      if (answer && ['approved', 'denied', 'pending'].includes(answer.status)) return answer
      return { status: 'denied', reason: `approval handler ${name} gave no valid decision` }
    } catch (error) {
      return { status: 'denied', reason: `approval handler ${name} failed: ${error instanceof Error ? error.message : String(error)}` }
    }
  }
}
