import type { AgentProfile } from '@shared/agents'
import type { ApprovalView } from '@shared/approvals'
import type { ActionResult } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'

/**
 * A real host on a home for the approval tests: agents running on bubblewrap, calls through
 * `host.agents.sessions` (the gateway's path: dispatcher, policy engine, the `console` queue), and
 * the contract's handlers for the operator's side.
 */
export async function approvalHost(home: string) {
  const host: Host = createHost({ home, logError: () => undefined })
  await host.recovered
  return {
    host,
    /** Creates an agent (default: bubblewrap, `ask: always`, so every command asks) and opens a session. */
    agent(agentId: string, profile: AgentProfile = {}) {
      if (!host.agents.service.list().some((agent) => agent.id === agentId))
        host.agents.service.create(agentId, { profile: { providers: ['bubblewrap'], ask: 'always', ...profile } })
      return session(host, agentId)
    },
    session: (agentId: string) => session(host, agentId),
    ipc: (namespace: 'approvals' | 'rules' | 'sessions', name: string, input: unknown) =>
      host.dispatch(`airlock:${namespace}:${name}`, input, { transport: 'websocket' }),
    /** The pending items, newest first. */
    pending: (): ApprovalView[] => host.approvals.list(),
    /** Waits until `count` items are pending and returns them (the call is queued asynchronously). */
    async waitForPending(count = 1, timeoutMs = 10_000): Promise<ApprovalView[]> {
      return waitFor(() => {
        const items = host.approvals.list()
        return items.length >= count ? items : undefined
      }, timeoutMs)
    }
  }
}

function session(host: Host, agentId: string) {
  const { sessionId } = host.agents.sessions.start(agentId, 'test')
  return {
    sessionId,
    call: (tool: string, input: unknown, options: { callId?: string; signal?: AbortSignal } = {}): Promise<ActionResult> =>
      host.agents.sessions.execute({ sessionId, tool, input, ...options }),
    end: () => host.agents.sessions.end(sessionId)
  }
}

/** Polls `probe` every 20 ms until it returns a value (or throws after `timeoutMs`). */
export async function waitFor<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`nothing came within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The stdout of a run_command that ran. */
export function stdoutOf(result: ActionResult): string | undefined {
  return (result.data as { stdout?: string } | undefined)?.stdout
}
