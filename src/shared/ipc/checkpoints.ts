import { z } from 'zod'
import { agentIdSchema } from '../agents'
import type { NamespaceSpec } from './contract'

/** An entry's state in a checkpoint: kind, mode, size, whether its content is kept (to show and to undo). */
export const entryStateSchema = z.object({
  kind: z.enum(['file', 'dir', 'link', 'other']),
  mode: z.number().int(),
  size: z.number().int(),
  hash: z.string().nullable(),
  kept: z.boolean()
})

/** One checkpoint as listed: the call it belongs to (null for changes found between calls), why it exists, how much it changed. */
export const checkpointSchema = z.object({
  seq: z.number().int(),
  id: z.string(),
  agentId: z.string(),
  callId: z.string().nullable(),
  kind: z.enum(['call', 'outside', 'revert', 'restore']),
  createdAt: z.string(),
  files: z.number().int(),
  newBytes: z.number().int(),
  note: z.string().nullable(),
  prunedAt: z.string().nullable()
})

/** One checkpoint. */
export type CheckpointView = z.infer<typeof checkpointSchema>

/** One changed entry: its path (escaped where not printable), how it changed, and a unified diff or a note saying why there is none. */
export const fileDiffSchema = z.object({
  path: z.string(),
  change: z.enum(['added', 'modified', 'deleted', 'mode', 'type']),
  before: entryStateSchema.nullable(),
  after: entryStateSchema.nullable(),
  diff: z.string().optional(),
  note: z.string().optional()
})

/** One changed entry. */
export type FileDiffView = z.infer<typeof fileDiffSchema>

/** The most changed entries one `checkpoints.detail` shows with diffs; `more` counts the rest. */
export const checkpointDetailLimit = 200

const idSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[0-9a-f-]+$/, 'a call id or checkpoint id')

/**
 * The `checkpoints` namespace (issue 28): every change agents made to their workspaces, as diffs,
 * and the operator's undo. `revert` undoes one call (refused, naming the files, when one changed
 * again since); `restore` brings the workspace back to before a call. Both are recorded as history
 * rows of the operator's and as checkpoints of their own, so they can be undone too.
 */
export const checkpointsContract = {
  calls: {
    list: {
      input: z.object({ agentId: agentIdSchema, limit: z.number().int().min(1).max(500).optional() }).strict(),
      output: z.object({ checkpoints: z.array(checkpointSchema), storeBytes: z.number().int(), enabled: z.boolean() })
    },
    detail: {
      input: z.object({ id: idSchema }).strict(),
      output: z.object({ checkpoint: checkpointSchema, files: z.array(fileDiffSchema), more: z.number().int() }).nullable()
    },
    revert: { input: z.object({ id: idSchema }).strict(), output: z.object({ files: z.number().int(), checkpointId: z.string().nullable() }) },
    restore: { input: z.object({ id: idSchema }).strict(), output: z.object({ files: z.number().int(), checkpointId: z.string().nullable() }) }
  },
  events: {
    changed: { payload: z.object({ agentId: z.string() }) }
  }
} satisfies NamespaceSpec
