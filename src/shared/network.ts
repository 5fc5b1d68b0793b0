import { z } from 'zod'
import { agentIdSchema, roleIdSchema } from './agents'

/**
 * Network egress through Airlock (SPEC §6.5): the operator's domain rules and the egress proxy's
 * own resolver entries. Shared by the store, the network module, the CLI and the console.
 */

/** What a rule says about a connection: let it through, refuse it, or ask the operator. */
export const netDecisionSchema = z.enum(['allow', 'deny', 'ask'])
export type NetDecision = z.infer<typeof netDecisionSchema>

/** A lower-case host name (labels of letters, digits and `-`) or an IP address written plainly. */
const hostName = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/
const ipv6Literal = /^\[[0-9a-f:.]+\]$/

/** A rule's host: exact (`pypi.org`, `10.0.0.5`, `[::1]`) or every name below a suffix (`*.pythonhosted.org`). */
export const netHostPatternSchema = z
  .string()
  .min(1)
  .max(253)
  .refine(
    (host) => hostName.test(host.startsWith('*.') ? host.slice(2) : host) || ipv6Literal.test(host),
    'a lower-case host name, *.suffix, or an IP address ([...] for IPv6)'
  )

const netRuleFields = z
  .object({
    agentId: agentIdSchema.nullable(),
    /** The rule applies to every agent of this role (then `agentId` is null). */
    roleId: roleIdSchema.optional(),
    decision: netDecisionSchema,
    host: netHostPatternSchema,
    port: z.number().int().min(1).max(65535).optional()
  })
  .strict()

/**
 * A domain rule as the operator writes it: for one agent (`agentId`), for every agent of a role
 * (`roleId`, `agentId: null`) or for all (both unset), optionally one port.
 */
export const netRuleInputSchema = netRuleFields.refine((rule) => rule.agentId === null || rule.roleId === undefined, {
  message: 'a rule is for an agent or for a role, not both',
  path: ['roleId']
})
export type NetRuleInput = z.infer<typeof netRuleInputSchema>

/** A stored domain rule. */
export const netRuleSchema = netRuleFields.extend({ id: z.string(), createdAt: z.string() })
export type NetRule = z.infer<typeof netRuleSchema>

/** A pinned name: the proxy resolves `name` to `address` before asking DNS (any address: the operator said so). */
export const netHostInputSchema = z
  .object({
    name: z.string().min(1).max(253).regex(hostName, 'a lower-case host name'),
    address: z
      .string()
      .min(2)
      .max(45)
      .regex(/^[0-9a-f.:]+$/i, 'an IPv4 or IPv6 address')
  })
  .strict()
export type NetHost = z.infer<typeof netHostInputSchema>

/** One endpoint a call reached (or was refused) through the egress proxy: what history and lineage show. */
export const egressRecordSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  address: z.string().optional(),
  decision: z.enum(['allowed', 'denied']),
  rule: z.string().optional(),
  reason: z.string().optional(),
  bytesUp: z.number().int().nonnegative(),
  bytesDown: z.number().int().nonnegative(),
  at: z.string()
})
export type EgressRecord = z.infer<typeof egressRecordSchema>

/** `host[:port]` as the CLI takes a rule's target (`[v6]:port` for IPv6); a port out of range is an error. */
export function parseRuleTarget(text: string): { host: string; port?: number } | { error: string } {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(text.trim().toLowerCase())
  if (!match) return { error: `${JSON.stringify(text)} is not host, *.suffix or host:port` }
  const host = netHostPatternSchema.safeParse(match[1])
  if (!host.success) return { error: `${JSON.stringify(match[1])}: ${host.error.issues[0]!.message}` }
  if (match[2] === undefined) return { host: host.data }
  const port = Number(match[2])
  if (port < 1 || port > 65535) return { error: `port ${match[2]} is out of range (1-65535)` }
  return { host: host.data, port }
}

/**
 * Package registries an operator can allow for every agent in one click (global allow rules,
 * HTTPS only except Debian's mirrors, which apt reaches over HTTP and checks by signature).
 */
export const registryPresets: readonly { id: string; title: string; rules: readonly { host: string; port: number }[] }[] = [
  {
    id: 'pypi',
    title: 'PyPI',
    rules: [
      { host: 'pypi.org', port: 443 },
      { host: 'files.pythonhosted.org', port: 443 }
    ]
  },
  { id: 'npm', title: 'npm', rules: [{ host: 'registry.npmjs.org', port: 443 }] },
  {
    id: 'crates',
    title: 'crates.io',
    rules: [
      { host: 'index.crates.io', port: 443 },
      { host: 'static.crates.io', port: 443 }
    ]
  },
  {
    id: 'go',
    title: 'Go module proxy',
    rules: [
      { host: 'proxy.golang.org', port: 443 },
      { host: 'sum.golang.org', port: 443 }
    ]
  },
  {
    id: 'debian',
    title: 'Debian',
    rules: [
      { host: 'deb.debian.org', port: 80 },
      { host: 'security.debian.org', port: 80 }
    ]
  }
]

/** Whether every rule of a preset is already a global allow rule. */
export function presetEnabled(preset: (typeof registryPresets)[number], rules: readonly NetRule[]): boolean {
  return preset.rules.every((wanted) =>
    rules.some((rule) => rule.agentId === null && rule.decision === 'allow' && rule.host === wanted.host && rule.port === wanted.port)
  )
}
