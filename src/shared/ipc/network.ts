import { z } from 'zod'
import { netHostInputSchema, netRuleInputSchema, netRuleSchema } from '../network'
import type { NamespaceSpec } from './contract'

/**
 * The `network` namespace (SPEC §6.5): the egress proxy's domain rules and pinned names, as the
 * Settings view lists and edits them (the same store `airlock net` writes; the proxy reads it on
 * every connection, so a change applies to the next connection).
 */
export const networkContract = {
  calls: {
    listRules: { input: z.object({}).strict(), output: z.array(netRuleSchema) },
    addRule: { input: netRuleInputSchema, output: netRuleSchema },
    removeRule: { input: z.object({ id: z.string().min(1).max(128) }).strict(), output: z.object({ removed: z.string() }) },
    listHosts: { input: z.object({}).strict(), output: z.array(netHostInputSchema) },
    addHost: { input: netHostInputSchema, output: netHostInputSchema },
    removeHost: { input: z.object({ name: z.string().min(1).max(253) }).strict(), output: z.object({ removed: z.string() }) }
  },
  events: {
    /** Rules or pinned names changed in this console's host: refresh. */
    changed: { payload: z.object({ what: z.enum(['rules', 'hosts']) }) }
  }
} satisfies NamespaceSpec
