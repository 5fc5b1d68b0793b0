import { z } from 'zod'
import { classificationLabelsSchema } from './agents'
import { resourceCandidateSchema } from './resources'

const port = z.number().int().min(1).max(65535)

/**
 * Every setting the operator can change, with its schema, default and a sentence for the UI.
 * Keys are the public names of SPEC §3.6/§3.3 where the spec names them.
 */
export const settingDefinitions = {
  'access_control_policy.auto_allow': {
    schema: z.boolean(),
    defaultValue: false,
    description: 'Approve policy gates automatically. Provider, sandbox, path, command and network limits still apply.'
  },
  'code_execution.providers': {
    schema: z.array(resourceCandidateSchema).min(1).max(16),
    defaultValue: ['bubblewrap', 'docker'],
    description: 'The ordered code-execution providers; the first eligible one runs the code.'
  },
  'policy.labels': {
    schema: classificationLabelsSchema,
    defaultValue: {},
    description:
      "Classification labels for every agent: path globs, SQLite databases, network domains and MCP servers, each PUBLIC, INTERNAL, CONFIDENTIAL or RESTRICTED. Reading labelled data raises a session's taint; sending it to a lower-labelled place asks."
  },
  'policy.secret_env_vars': {
    schema: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name')).max(256),
    defaultValue: [],
    description:
      'Names of environment variables of the Airlock process whose values are secrets: they are redacted from every tool result, history row and log.'
  },
  'checkpoints.enabled': {
    schema: z.boolean(),
    defaultValue: true,
    description:
      'Keep a checkpoint of every change an agent makes to its workspace (before and after each file), so the operator can see it as a diff and undo it. Deletions and overwrites the checkpoint can restore then no longer ask under ask: on_risk.'
  },
  'checkpoints.max_file_mb': {
    schema: z.number().int().min(0).max(4096),
    defaultValue: 20,
    description:
      'Files larger than this are recorded as changed (with their hash) but their content is not kept: a change to one cannot be undone, so deleting or overwriting it still asks.'
  },
  'checkpoints.keep_days': {
    schema: z.number().int().min(1).max(3650),
    defaultValue: 30,
    description: 'Checkpoints older than this are pruned (oldest first); pruning is recorded.'
  },
  'checkpoints.keep_count': {
    schema: z.number().int().min(1).max(1_000_000),
    defaultValue: 1000,
    description: 'At most this many checkpoints are kept per agent; the oldest are pruned first.'
  },
  'checkpoints.max_store_mb': {
    schema: z.number().int().min(1).max(1_048_576),
    defaultValue: 2048,
    description:
      "The checkpoint store's size per agent. Past it the oldest checkpoints are pruned; a workspace whose current files alone exceed it is over its checkpoint budget, so its deletions ask again."
  },
  'console.port': {
    schema: port,
    defaultValue: 7410,
    description: 'Port of the web console on 127.0.0.1 (used by `airlock serve`).'
  },
  'gateway.port': {
    schema: port,
    defaultValue: 7411,
    description: 'Port of the agent gateway (MCP over Streamable HTTP) on 127.0.0.1: agents connect to http://127.0.0.1:<port>/mcp.'
  },
  'gateway.idle_timeout_seconds': {
    schema: z
      .number()
      .int()
      .min(10)
      .max(30 * 24 * 3600),
    defaultValue: 86_400,
    description:
      'An MCP session with no request and no call in flight for this long is ended (an agent often idles for hours between calls; its client keeps the session id).'
  },
  'gateway.idle_release_seconds': {
    schema: z
      .number()
      .int()
      .min(10)
      .max(30 * 24 * 3600),
    defaultValue: 900,
    description:
      'An MCP session quiet this long keeps its session (working directory, taint) but gives back its warm resources (shell sandbox, containers, upstream servers); its next call makes them again.'
  },
  'gateway.max_concurrent_calls': {
    schema: z.number().int().min(1).max(1024),
    defaultValue: 16,
    description: 'Tool calls one agent may have in flight at once, over all its sessions; a call beyond this is refused with a clear error.'
  },
  'gateway.rate_per_minute': {
    schema: z.number().int().min(1).max(1_000_000),
    defaultValue: 600,
    description:
      "Tool calls, tool listings and new sessions (initialize) one agent may start per minute (a burst of up to a minute's worth is allowed); beyond this a request is refused until the budget refills."
  },
  'gateway.max_sessions_per_agent': {
    schema: z.number().int().min(1).max(1024),
    defaultValue: 16,
    description:
      'MCP sessions one agent may have open at once (each may hold a warm shell, containers and upstream servers); an initialize beyond this is refused until one ends.'
  }
} as const

/** The name of a known setting. */
export type SettingKey = keyof typeof settingDefinitions

/** The value type of a setting. */
export type SettingValue<K extends SettingKey> = z.infer<(typeof settingDefinitions)[K]['schema']>

/** All known setting keys, in display order. */
export const settingKeys = Object.keys(settingDefinitions) as SettingKey[]

/** Zod enum of the known keys, for inputs that name a setting. */
export const settingKeySchema = z.enum(settingKeys as [SettingKey, ...SettingKey[]])

/** `{key, value}` where value is checked against that key's own schema (issues name the field). */
export const settingAssignmentSchema = z
  .object({ key: settingKeySchema, value: z.unknown() })
  .strict()
  .superRefine((assignment, ctx) => {
    const parsed = settingDefinitions[assignment.key].schema.safeParse(assignment.value)
    if (parsed.success) return
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: ['value', ...issue.path] })
    }
  })

/** A setting as the console shows it. */
export const settingViewSchema = z.object({
  key: settingKeySchema,
  value: z.unknown(),
  defaultValue: z.unknown(),
  isDefault: z.boolean(),
  description: z.string()
})

/** A setting as the console shows it. */
export type SettingView = z.infer<typeof settingViewSchema>
