import { AirlockError } from '@shared/errors'
import type { EffectiveAgentProfile } from '@shared/agents'
import { actionAgent } from '../capabilities/agent-toolset'
import type { ActionAgent, ActionDispatcher, ActionResult } from '../core'

/** What the sessions need to know about agents (the agent service answers). */
export type AgentDirectory = {
  state(agentId: string): 'enabled' | 'disabled' | 'removed'
  effectiveProfile(agentId: string): EffectiveAgentProfile
  workspaceOf(agentId: string): string
}

/** Where sessions are recorded (start, last seen, end). */
export type SessionLedger = {
  start(agentId: string, transport: string): string
  touch(sessionId: string): void
  end(sessionId: string, reason: string): void
  /** Opens again a session a restart ended (the caller checked it may resume); false when it could not. */
  reopen(sessionId: string): boolean
}

/**
 * An open session: its agent, the agent context its calls run with, the profile that context was
 * built from, the calls in flight, and a pending release of warm resources made under an older profile.
 */
type OpenSession = { agentId: string; agent: ActionAgent; profile: string; inFlight: number; stale: boolean; resetting?: Promise<void> }

/** A session that is not open (never was, ended, or its agent went away). */
export class SessionClosedError extends AirlockError<'session.closed'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('session.closed', message, {}, options)
  }
}

/**
 * The API the MCP gateway (and tests, and the CLI) call: open a session for an agent, execute
 * tool calls in it through the dispatcher, end it. A session's warm resources (its shell, its
 * container) end with it. The agent's profile is read again at every call: a changed profile
 * applies to the session's next call (see `current`), while disabling or removing an agent ends
 * its sessions and stops its calls at once.
 */
export class AgentSessions {
  private readonly open = new Map<string, OpenSession>()

  constructor(
    private readonly options: {
      dispatcher: ActionDispatcher
      agents: AgentDirectory
      ledger: SessionLedger
      /** Secret values of a profile (MCP env and headers), redacted from every record. */
      secretsOf(profile: EffectiveAgentProfile): string[]
    }
  ) {}

  /** Opens a session for an enabled agent; returns its id. */
  start(agentId: string, transport: string): { sessionId: string; tools: string[] } {
    if (this.options.agents.state(agentId) !== 'enabled') throw new SessionClosedError(`Agent ${agentId} is not enabled.`)
    const profile = this.options.agents.effectiveProfile(agentId)
    const sessionId = this.options.ledger.start(agentId, transport)
    const agent = this.agentContext(agentId, sessionId, profile)
    this.open.set(sessionId, { agentId, agent, profile: JSON.stringify(profile), inFlight: 0, stale: false })
    return { sessionId, tools: [...agent.tools] }
  }

  /**
   * Opens again a session of an enabled agent that a restart of Airlock ended (the MCP gateway
   * resumes its client's `Mcp-Session-Id`): the same id, its taint and working directory as they
   * were recorded; its warm resources are made again by its next call.
   */
  resume(agentId: string, sessionId: string): { sessionId: string; tools: string[] } {
    if (this.options.agents.state(agentId) !== 'enabled') throw new SessionClosedError(`Agent ${agentId} is not enabled.`)
    if (this.open.has(sessionId)) throw new SessionClosedError(`Session ${sessionId} is already open.`)
    if (!this.options.ledger.reopen(sessionId)) throw new SessionClosedError(`Session ${sessionId} cannot be resumed.`)
    const profile = this.options.agents.effectiveProfile(agentId)
    const agent = this.agentContext(agentId, sessionId, profile)
    this.open.set(sessionId, { agentId, agent, profile: JSON.stringify(profile), inFlight: 0, stale: false })
    return { sessionId, tools: [...agent.tools] }
  }

  /** Runs one tool call in a session; never throws for a failed call (the result says why). */
  async execute(input: { sessionId: string; tool: string; input: unknown; callId?: string; signal?: AbortSignal }): Promise<ActionResult> {
    const session = this.open.get(input.sessionId)
    if (!session) throw new SessionClosedError(`Session ${input.sessionId} is not open.`)
    this.options.ledger.touch(input.sessionId)
    const agent = await this.current(input.sessionId, session)
    session.inFlight += 1
    try {
      return await this.options.dispatcher.execute({ callId: input.callId, tool: input.tool, input: input.input, agent, signal: input.signal })
    } finally {
      session.inFlight -= 1
    }
  }

  /** The agent context of an open session (for listing its tools), as its agent's profile is now. */
  agentOf(sessionId: string): ActionAgent | undefined {
    const session = this.open.get(sessionId)
    if (!session || this.options.agents.state(session.agentId) !== 'enabled') return session?.agent
    this.refresh(sessionId, session)
    return session.agent
  }

  /**
   * The operator changed the agent's profile (or its role) while the session is open: the next
   * call already runs under the new one — its tools, policy, ask mode and limits — and the
   * session's warm resources (shell, containers, upstream servers), made under the old profile,
   * are released before a call runs with nothing in flight, so they are made again as the new
   * profile says (network, limits, mounts). Loosening and tightening both apply at once.
   */
  private async current(sessionId: string, session: OpenSession): Promise<ActionAgent> {
    // A disabled or removed agent's call is refused by the dispatcher's gate, with the old context.
    if (this.options.agents.state(session.agentId) !== 'enabled') return session.agent
    this.refresh(sessionId, session)
    while (session.resetting) await session.resetting
    if (session.stale && session.inFlight === 0) {
      session.stale = false
      session.resetting = this.options.dispatcher.sessions.end(sessionId).finally(() => (session.resetting = undefined))
      await session.resetting
    }
    return session.agent
  }

  private refresh(sessionId: string, session: OpenSession): void {
    const profile = this.options.agents.effectiveProfile(session.agentId)
    const fingerprint = JSON.stringify(profile)
    if (fingerprint === session.profile) return
    session.agent = this.agentContext(session.agentId, sessionId, profile)
    session.profile = fingerprint
    session.stale = true
  }

  private agentContext(agentId: string, sessionId: string, profile: EffectiveAgentProfile): ActionAgent {
    return actionAgent({ agentId, sessionId, workspace: this.options.agents.workspaceOf(agentId), profile, secrets: this.options.secretsOf(profile) })
  }

  /** Ends a session: releases its warm resources and records why. Ending twice is harmless. */
  async end(sessionId: string, reason = 'closed'): Promise<void> {
    if (!this.open.delete(sessionId)) return
    try {
      await this.options.dispatcher.sessions.end(sessionId)
    } finally {
      this.options.ledger.end(sessionId, reason)
    }
  }

  /** Ends every session of an agent (it was disabled or removed) and stops its calls in flight. */
  async endAgent(agentId: string, why: 'agent_disabled' | 'agent_removed'): Promise<void> {
    this.options.dispatcher.cancelAgent(agentId, why)
    const ids = [...this.open].filter(([, session]) => session.agentId === agentId).map(([id]) => id)
    await Promise.allSettled(ids.map((id) => this.end(id, why)))
  }

  /** Ends every open session (shutdown). */
  async endAll(reason = 'shutdown'): Promise<void> {
    await Promise.allSettled([...this.open.keys()].map((id) => this.end(id, reason)))
  }
}
