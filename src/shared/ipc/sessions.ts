import { z } from 'zod'
import { agentIdSchema } from '../agents'
import { sessionChangedEventSchema, sessionViewSchema } from '../approvals'
import type { NamespaceSpec } from './contract'

/**
 * The `sessions` namespace: agent sessions across all agents (the gateway opens one per MCP
 * session). `end` ends a session open in this console, releasing its session-scoped resources.
 */
export const sessionsContract = {
  calls: {
    list: {
      input: z.object({ agentId: agentIdSchema.optional(), open: z.boolean().optional(), limit: z.number().int().min(1).max(1000).optional() }).strict(),
      output: z.array(sessionViewSchema)
    },
    end: { input: z.object({ id: z.string().min(1).max(128) }).strict(), output: sessionViewSchema }
  },
  events: {
    /** A session started or ended. */
    changed: { payload: sessionChangedEventSchema }
  }
} satisfies NamespaceSpec
