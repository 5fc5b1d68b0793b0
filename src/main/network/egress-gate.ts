import { lookup as dnsLookup } from 'node:dns/promises'
import type { Classification } from '@shared/agents'
import type { NetRule } from '@shared/network'
import type { EgressOwner } from '../core'
import { ipLiteral, refusedRange } from './address-ranges'
import { describeRule, ruleVerdict } from './egress-rules'

/** Whether a connection may go out, and where to: the one address the proxy connects to (never resolved again). */
export type EgressAdmission = { ok: true; host: string; address: string; rule?: string } | { ok: false; host: string; reason: string; rule?: string }

/** Decides one connection of an owner to `host:port`. */
export type EgressGate = (owner: EgressOwner, host: string, port: number, signal: AbortSignal) => Promise<EgressAdmission>

/** The agent behind an endpoint's owner, and how it wants unknown domains treated. */
export type EgressAgent = { agentId: string; role?: string; sessionId?: string; ask: 'never' | 'on_risk' | 'always'; approvalTimeoutSeconds: number }

/** What the gate decides with: the rules, pinned names, the agent of an owner, the operator, and DNS. */
export type EgressGateOptions = {
  rules: () => readonly NetRule[]
  pinned: (name: string) => string | undefined
  agentOf: (owner: EgressOwner) => EgressAgent | undefined
  /** Asks the operator (the approval queue); true when approved. `writeDown` says why a connection no rule refuses still needs a yes. */
  ask: (request: { agent: EgressAgent; host: string; port: number; signal: AbortSignal; writeDown?: WriteDown }) => Promise<boolean>
  /**
   * Whether a connection of this owner to `host` would be a write-down (SPEC §6.3: what the
   * session has read, or the MCP server behind the endpoint holds, is labelled above the host).
   */
  writeDown?: (agent: EgressAgent, owner: EgressOwner, host: string) => WriteDown | undefined
  /** Every address of a name (default: the system resolver). */
  lookup?: (host: string) => Promise<string[]>
}

/** A connection that would send data down: the level carried, the host's label, and why in words. */
export type WriteDown = { carried: Classification; label: Classification; reason: string }

/** How long a name may take to resolve. */
const lookupTimeoutMs = 5000
const hostName = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/

/**
 * The egress decision (SPEC §6.5), in an order that leaks nothing: a deny rule refuses before any
 * lookup; an IP literal in a refused range is refused before anyone is asked; a name no rule
 * allows is asked (or refused under ask mode `never`) before it is resolved, so a refused name is
 * never sent to DNS; then the name is resolved by the proxy (pinned names first) and refused if
 * any address is in a refused range, unless an allow rule names the host exactly or the operator
 * pinned it. The connection then goes to that address, so a second answer cannot rebind it.
 *
 * Classification (SPEC §6.3): a session that has read data labelled above a host's label (domain
 * labels in `policy.labels` and the profile) writes down by connecting there. Whatever the rules
 * say, such a connection is asked (refused under ask mode `never`): an allow rule says a domain is
 * fine to reach, not that this session's data may go there. A deny rule still refuses first.
 */
export function egressGate(options: EgressGateOptions): EgressGate {
  const lookup = options.lookup ?? systemLookup
  return async (owner, rawHost, port, signal) => {
    const asked = rawHost.toLowerCase().replace(/\.$/, '')
    const literal = ipLiteral(asked)
    const host = literal ?? asked
    const refuse = (reason: string, rule?: NetRule): EgressAdmission => ({ ok: false, host, reason, ...(rule ? { rule: rule.id } : {}) })
    if (!literal && (host.length > 253 || !hostName.test(host))) return refuse(`${JSON.stringify(rawHost.slice(0, 80))} is not a host name`)
    if (!Number.isInteger(port) || port < 1 || port > 65535) return refuse(`port ${port} is out of range`)
    const agent = options.agentOf(owner)
    if (!agent) return refuse('this connection belongs to no agent session Airlock knows')
    const verdict = ruleVerdict(options.rules(), { agentId: agent.agentId, role: agent.role }, host, port)
    if (verdict?.decision === 'deny') return refuse(`${host}:${port} is denied by ${describeRule(verdict.rule)}`, verdict.rule)
    const pinned = literal ? undefined : options.pinned(host)
    // Only an exact allow (or a pin) is the operator naming the address; an exact ask rule is not:
    // approving "example.com" is not approving whatever it resolves to.
    const named = pinned !== undefined || (verdict?.decision === 'allow' && verdict.exact)
    if (literal) {
      const range = refusedRange(literal)
      if (range && !named) return refuse(`${host} is a ${range} address; Airlock connects there only when an allow rule names it exactly`)
    }
    const writeDown = options.writeDown?.(agent, owner, host)
    if (writeDown && agent.ask === 'never')
      return refuse(`${writeDown.reason} (write-down), and agent ${agent.agentId} is never asked (ask: never)`, verdict?.rule)
    if (!verdict) {
      if (agent.ask === 'never') return refuse(`no rule allows ${host}:${port}, and agent ${agent.agentId} is never asked about (ask: never)`)
    }
    if (!verdict || verdict.decision === 'ask' || writeDown) {
      const approved = await options.ask({ agent, host, port, signal, ...(writeDown ? { writeDown } : {}) })
      if (!approved) return refuse(`the operator did not approve ${host}:${port}${writeDown ? ` (${writeDown.reason})` : ''}`, verdict?.rule)
    }
    let addresses: string[]
    try {
      addresses = literal ? [literal] : pinned ? [pinned] : await withTimeout(lookup(host), lookupTimeoutMs)
    } catch (error) {
      return refuse(`${host} could not be resolved (${(error as Error).message})`, verdict?.rule)
    }
    if (addresses.length === 0) return refuse(`${host} has no address`, verdict?.rule)
    if (!named) {
      for (const address of addresses) {
        const canonical = ipLiteral(address)
        const range = canonical ? refusedRange(canonical) : 'unparsable'
        if (range)
          return refuse(
            `${host} resolves to ${address}, a ${range} address; Airlock connects there only when an allow rule names ${host} exactly or it is pinned (airlock net hosts)`,
            verdict?.rule
          )
      }
    }
    return { ok: true, host, address: ipLiteral(addresses[0]!) ?? addresses[0]!, ...(verdict ? { rule: verdict.rule.id } : {}) }
  }
}

async function systemLookup(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address)
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms / 1000} s`)), ms)))]).finally(
    () => clearTimeout(timer)
  )
}
