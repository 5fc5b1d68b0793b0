import { z } from 'zod'
import { resourceHandleViewSchema, resourceStatusSchema } from '../resources'
import type { NamespaceSpec } from './contract'

/** One event of the execution-resource core as the console sees it (payload already whitelisted). */
export const resourceEventSchema = z.object({
  type: z.string(),
  payload: z.record(z.string(), z.unknown()),
  at: z.string()
})

/** A resource event. */
export type ResourceEventView = z.infer<typeof resourceEventSchema>

const handleIdInput = z.object({ handleId: z.string().min(1).max(200) }).strict()

/** The `resources` namespace: live handles, the operator's release and health check, the event stream. */
export const resourcesContract = {
  calls: {
    list: { input: z.object({}).strict(), output: z.array(resourceHandleViewSchema) },
    release: { input: handleIdInput, output: z.object({ released: z.boolean() }) },
    checkHealth: { input: handleIdInput, output: z.object({ status: resourceStatusSchema }) },
    recentEvents: {
      input: z.object({ limit: z.number().int().min(1).max(500).optional() }).strict(),
      output: z.array(resourceEventSchema)
    }
  },
  events: {
    event: { payload: resourceEventSchema },
    /** A handle was created, changed (refCount, status) or removed: refresh the list. */
    changed: { payload: z.object({ handleId: z.string() }) }
  }
} satisfies NamespaceSpec
