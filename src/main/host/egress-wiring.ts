import { createHash, randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { classificationRank, higherClassification, type ClassificationLabels, type EffectiveAgentProfile } from '@shared/agents'
import { ClassificationLabelSet, type EgressOwner, type PolicyApproval, type SandboxIdentity } from '../core'
import { EgressProxy, egressGate, type EgressAgent } from '../network'
import type { Store } from '../store'

/**
 * Where a home's egress endpoint folders are made: the system's temporary folder (sticky; each
 * folder made by mkdtemp, 0700), named after the home so a start-up sweep removes only its own.
 * Not in the home: a unix socket path holds at most 107 bytes, and a home can be deeper than that.
 */
export function egressPlace(home: string): { runDir: string; prefix: string } {
  return { runDir: tmpdir(), prefix: `airlock-egress-${createHash('sha256').update(home).digest('hex').slice(0, 10)}-` }
}

/** The longest a connection waits for the operator, whatever the agent's approval timeout. */
const askTimeoutSeconds = 120

/**
 * The egress proxy of the composition root (SPEC §6.5): the rules and pinned names from the store
 * (read on every connection, so a CLI change applies at once), the agent behind an endpoint from
 * its session, and `ask` through the same approval queue as every other request (an item
 * "coder wants host:port", kind `network`, which approving as a rule turns into a domain rule).
 * A tainted session's connection to a host labelled below its taint is a write-down (the labels:
 * setting `policy.labels` and the agent's profile, as the policy engine reads them).
 */
export function createEgressProxy(options: {
  store: Store
  /** Where endpoint folders are made, and the start of their names (see `EgressProxyOptions`). */
  runDir: string
  prefix: string
  approval: PolicyApproval
  identity: SandboxIdentity
  /** The effective profile of an agent, once the agent runtime exists. */
  profileOf: (agentId: string) => EffectiveAgentProfile | undefined
  /** The global classification labels (setting `policy.labels`). */
  globalLabels: () => ClassificationLabels
}): EgressProxy {
  const { store } = options
  const agentOf = (owner: EgressOwner): EgressAgent | undefined => {
    const sessionId = owner.scope === 'session' ? owner.ownerId : undefined
    const agentId = sessionId
      ? store.sessions.get(sessionId)?.agentId
      : owner.actionCallId
        ? (store.history.get(owner.actionCallId)?.agentId ?? undefined)
        : undefined
    const profile = agentId ? options.profileOf(agentId) : undefined
    if (!agentId || !profile) return undefined
    return {
      agentId,
      ...(profile.role ? { role: profile.role } : {}),
      ...(sessionId ? { sessionId } : {}),
      ask: profile.ask,
      approvalTimeoutSeconds: profile.approvalTimeoutSeconds
    }
  }
  return new EgressProxy({
    runDir: options.runDir,
    prefix: options.prefix,
    identity: options.identity,
    gate: egressGate({
      rules: () => store.network.rules(),
      pinned: (name) => store.network.pinned(name),
      agentOf,
      writeDown: (agent, owner, host) => {
        // What the connection may carry: what the session has read, and what an MCP server behind the endpoint holds.
        const taint = agent.sessionId ? store.sessions.taint(agent.sessionId) : 'PUBLIC'
        // The common case (nothing read, no server) builds no label set: this runs on every connection.
        if (taint === 'PUBLIC' && !owner.mcpServer) return undefined
        const profile = options.profileOf(agent.agentId)
        const labels = new ClassificationLabelSet([options.globalLabels(), profile?.labels ?? {}], profile?.mcpServers ?? [])
        const held = owner.mcpServer ? labels.ofServer(owner.mcpServer) : 'PUBLIC'
        const carried = higherClassification(taint, held)
        if (carried === 'PUBLIC') return undefined
        const label = labels.ofDomain(host)
        if (classificationRank(carried) <= classificationRank(label)) return undefined
        const what =
          classificationRank(held) > classificationRank(taint) ? `MCP server ${owner.mcpServer} holds ${held} data` : `this session has read ${taint} data`
        return { carried, label, reason: `${what} and ${host} is labelled ${label}` }
      },
      ask: async ({ agent, host, port, signal, writeDown }) => {
        const decision = await options.approval.resolve({
          requirementId: `egress:${randomUUID()}`,
          kind: 'network',
          scope: agent.sessionId ? 'session' : 'action_call',
          ...(agent.sessionId ? { ownerId: agent.sessionId, sessionId: agent.sessionId } : {}),
          approvalKind: 'network',
          tool: 'network',
          agentId: agent.agentId,
          reason: writeDown ? `${writeDown.reason}: sending there is a write-down` : `no network rule names ${host}:${port}`,
          summary: `${agent.agentId} wants ${host}:${port}${writeDown ? ' (write-down)' : ''}`,
          input: { host, port },
          riskFlags: writeDown ? ['network', 'write_down'] : ['network'],
          // A write-down is the operator's decision every time: never remembered as a rule, never
          // folded into a question about data of another level (the level is part of the item).
          ...(writeDown ? { rule: 'classification.write_down', classification: { taint: writeDown.carried, sink: writeDown.label } } : {}),
          timeoutSeconds: Math.min(agent.approvalTimeoutSeconds, askTimeoutSeconds),
          signal
        })
        return decision.status === 'approved'
      }
    })
  })
}
