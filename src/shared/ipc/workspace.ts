import { z } from 'zod'
import { agentIdSchema } from '../agents'
import type { NamespaceSpec } from './contract'

/**
 * A path inside an agent's workspace, relative to its root, `/`-separated ('' is the root). The
 * host resolves it against the workspace's real path and refuses anything that leaves it; the
 * workspace is written by sandboxed code, so every entry in it is hostile input.
 */
export const workspacePathSchema = z
  .string()
  .max(4096)
  .refine((path) => !path.startsWith('/') && !path.includes('\0') && !path.split('/').some((part) => part === '..'), {
    message: 'must be a path inside the workspace (no leading /, no .., no NUL)'
  })

/** What one directory entry is, from `lstat` (a symlink is never followed). */
export const workspaceEntryKindSchema = z.enum(['file', 'directory', 'symlink', 'other'])

/** One entry of a workspace directory. */
export const workspaceEntrySchema = z.object({
  name: z.string(),
  path: z.string(),
  kind: workspaceEntryKindSchema,
  bytes: z.number().int().nonnegative(),
  modifiedAt: z.string()
})

/** One entry of a workspace directory. */
export type WorkspaceEntry = z.infer<typeof workspaceEntrySchema>

/** The most entries one `workspace.list` returns; `truncated` says when there were more. */
export const workspaceListLimit = 2000

/** The most bytes of a file `workspace.read` returns; `truncated` says when the file is longer. */
export const workspaceReadLimit = 256 * 1024

/** A file as the viewer shows it: text (UTF-8, cut at the limit) or, for binary content, only its size. */
export const workspaceFileSchema = z.object({
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  modifiedAt: z.string(),
  binary: z.boolean(),
  /** Null for binary files. */
  text: z.string().nullable(),
  truncated: z.boolean()
})

/** A file as the viewer shows it. */
export type WorkspaceFile = z.infer<typeof workspaceFileSchema>

/**
 * A recently changed file, newest first (by modification time). Where a checkpoint recorded it:
 * how it changed and the call that changed it (null: changed between calls); a deleted file is
 * listed too (its time is the checkpoint's, `bytes` 0).
 */
export const workspaceChangeSchema = z.object({
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  modifiedAt: z.string(),
  change: z.enum(['added', 'modified', 'deleted', 'mode', 'type']).optional(),
  callId: z.string().nullable().optional()
})

/** A recently changed file. */
export type WorkspaceChange = z.infer<typeof workspaceChangeSchema>

/**
 * The `workspace` namespace (SPEC §11 Agents view): a read-only browser of an agent's workspace.
 * Nothing here writes; symlinks are listed as symlinks and never followed; reads are bounded.
 */
export const workspaceContract = {
  calls: {
    list: {
      input: z.object({ agentId: agentIdSchema, path: workspacePathSchema.optional() }).strict(),
      output: z.object({ path: z.string(), entries: z.array(workspaceEntrySchema), truncated: z.boolean() })
    },
    read: {
      input: z.object({ agentId: agentIdSchema, path: workspacePathSchema.refine((p) => p.length > 0, 'name a file') }).strict(),
      output: workspaceFileSchema
    },
    /** Files changed most recently anywhere in the workspace (a bounded walk; `scanned` says how many entries it looked at). */
    recent: {
      input: z.object({ agentId: agentIdSchema, limit: z.number().int().min(1).max(200).optional() }).strict(),
      output: z.object({ changes: z.array(workspaceChangeSchema), scanned: z.number().int(), complete: z.boolean() })
    }
  },
  events: {}
} satisfies NamespaceSpec
