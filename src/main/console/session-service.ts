import type { SessionView } from '@shared/approvals'
import type { ExecutionResourceManager } from '../core'
import type { SessionRepository } from '../store'
import type { AgentSessions } from './agent-sessions'
import { ApprovalError } from './approvals'

/**
 * Agent sessions as the operator sees them (the `sessions` namespace): every session in the store,
 * open or ended, and ending one open in this console, which releases what it held (its shell, its
 * warm container, every session-scoped resource). Ending an ended session is harmless.
 */
export class SessionService {
  constructor(private readonly options: { ledger: SessionRepository; sessions: AgentSessions; resources: Pick<ExecutionResourceManager, 'releaseScope'> }) {}

  /** Sessions newest first, of one agent or all, open or ended ones only when `open` says. */
  list(query: { agentId?: string; open?: boolean; limit?: number } = {}): SessionView[] {
    return this.options.ledger.list(query)
  }

  /** Ends a session open here; `session.not_here` when another process holds it open. */
  async end(id: string, reason = 'ended_by_operator'): Promise<SessionView> {
    const before = this.view(id)
    if (!before) throw new ApprovalError('session.not_found', `There is no session ${JSON.stringify(id)}.`, { id })
    if (!before.open) return before
    if (!this.options.sessions.agentOf(id))
      throw new ApprovalError('session.not_here', `Session ${id} is not open in this console (another Airlock process holds it).`, { id })
    await this.options.sessions.end(id, reason)
    await this.options.resources.releaseScope('session', id)
    return this.view(id)!
  }

  private view(id: string): SessionView | undefined {
    const session = this.options.ledger.get(id)
    return session ? { ...session, open: session.endedAt === null } : undefined
  }
}
