import { z } from 'zod'
import { isolationPolicySchema, networkModeSchema } from './resources'
import { protectedPathSchema } from './protected-paths'

/**
 * An agent id: a slug that is also its workspace folder name. `background` is taken by the
 * temporary workspaces of background tasks (SPEC §6.2).
 */
export const agentIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a slug: lowercase letters, digits and -, at most 63 characters, starting with a letter or digit')
  .refine((id) => id !== 'background', '"background" is reserved for background-task workspaces')

/** A role id: the same slug rules as an agent id. */
export const roleIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a slug: lowercase letters, digits and -')

/** The capabilities a profile can enable; each maps to a capability helper (SPEC §6.1). */
export const capabilityNameSchema = z.enum(['files', 'shell', 'python', 'nodejs', 'code_runtime', 'sqlite', 'browser', 'mcp', 'vector_store'])

/** Code-execution providers an agent may name in its order override. */
export const codeProviderIdSchema = z.enum(['bubblewrap', 'gvisor', 'docker', 'trusted_local', 'bash'])
/** A code-execution provider an agent may name. */
export type CodeProviderId = z.infer<typeof codeProviderIdSchema>

/** Classification levels, lowest first (SPEC §6.3). */
export const classificationSchema = z.enum(['PUBLIC', 'INTERNAL', 'CONFIDENTIAL', 'RESTRICTED'])

/** A level's position, lowest first: PUBLIC 0 … RESTRICTED 3. */
export function classificationRank(level: Classification): number {
  return classificationSchema.options.indexOf(level)
}

/** The higher of two levels. */
export function higherClassification(a: Classification, b: Classification): Classification {
  return classificationRank(a) >= classificationRank(b) ? a : b
}

/** When a call waits for the operator (SPEC §6.1). */
export const askModeSchema = z.enum(['always', 'on_risk', 'never'])

/** Per-agent limits; every one positive and bounded so a typo cannot mean "unlimited". */
export const agentLimitsSchema = z
  .object({
    timeoutSeconds: z
      .number()
      .positive()
      .max(24 * 3600),
    cpuSeconds: z
      .number()
      .positive()
      .max(24 * 3600),
    memoryMb: z
      .number()
      .int()
      .positive()
      .max(1024 * 1024),
    pids: z.number().int().positive().max(65536),
    diskMb: z
      .number()
      .int()
      .positive()
      .max(16 * 1024 * 1024),
    outputBytes: z
      .number()
      .int()
      .positive()
      .max(256 * 1024 * 1024)
  })
  .strict()

const headerValue = z.string().max(8192)

/**
 * A host directory an operator lets a sandboxed stdio MCP server read (its program's files, e.g.
 * a node_modules tree): absolute, no `..`. Where it really leads is checked when the server starts
 * (the Airlock home, `/` and the user's whole home are refused; see src/main/providers/mcp/server-sandbox.ts).
 */
const readOnlyPath = z
  .string()
  .max(4096)
  .startsWith('/', 'must be an absolute path')
  .refine((path) => !path.includes('\0') && !path.split('/').includes('..'), 'must not contain ".." or NUL')
  .refine((path) => path.replace(/\/+$/, '') !== '', 'must not be / (the whole file system)')

/**
 * An upstream MCP server attached to an agent: a stdio command or a Streamable HTTP URL. A stdio
 * server runs inside a bubblewrap sandbox with its own scratch directory
 * (`<workspace>/integrations/<name>/`), read-only `readOnlyPaths`, only its `env` and network as
 * `network` says (default `none`; `proxy`: only through Airlock's egress proxy, under the agent's
 * domain rules); `unsafe: true` runs it on the host instead (the operator's
 * explicit choice, shown as unsandboxed). `env` and `headers` values are secrets: they are
 * redacted from everything Airlock records.
 */
export const mcpServerSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be a short slug (its tools are named <server>__<tool>)')
      .refine((n) => !n.includes('__'), 'must not contain "__"'),
    command: z.array(z.string().min(1).max(4096)).min(1).max(256).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(65536)).optional(),
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/), headerValue).optional(),
    unsafe: z.boolean().optional(),
    network: networkModeSchema.optional(),
    readOnlyPaths: z.array(readOnlyPath).max(16).optional(),
    classification: classificationSchema.optional()
  })
  .strict()
  .refine((server) => (server.command === undefined) !== (server.url === undefined), {
    message: 'give exactly one of command (stdio) or url (Streamable HTTP)',
    path: ['command']
  })
  .superRefine((server, ctx) => {
    // A key that would not apply must not look like a restriction in force.
    for (const key of ['network', 'readOnlyPaths'] as const) {
      if (server[key] === undefined) continue
      if (server.url !== undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `applies to stdio servers only (a URL server is reached under the agent's network policy)` })
      else if (server.unsafe === true)
        ctx.addIssue({ code: 'custom', path: [key], message: 'does not apply to a server marked unsafe (it runs on the host, without a sandbox)' })
    }
  })

const labelMap = <K extends z.ZodType<string>>(key: K) =>
  z.record(key, classificationSchema).refine((map) => Object.keys(map).length <= 256, 'at most 256 labels')

/**
 * Classification labels (SPEC §6.3) on what an agent can read or send to: workspace path globs
 * (`secrets/**`), SQLite database path globs, network domains (`example.com`, `*.corp.example`)
 * and MCP servers by name. Set globally (setting `policy.labels`) and per role or agent (profile
 * `labels`); where several name the same thing, the highest level counts.
 */
export const classificationLabelsSchema = z
  .object({
    paths: labelMap(z.string().min(1).max(1024)).optional(),
    databases: labelMap(z.string().min(1).max(1024)).optional(),
    domains: labelMap(z.string().regex(/^(?:\*\.)?[a-z0-9.-]{1,253}$/i, 'must be a host name or *.suffix')).optional(),
    mcpServers: labelMap(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/)).optional()
  })
  .strict()

/** Classification labels by kind. */
export type ClassificationLabels = z.infer<typeof classificationLabelsSchema>

/** Every key of a profile, each required (the base the profile, role and effective schemas share). */
const profileFields = z.object({
  role: roleIdSchema,
  capabilities: z.array(capabilityNameSchema).max(16),
  providers: z.array(codeProviderIdSchema).min(1).max(8),
  isolation: isolationPolicySchema,
  unsafeFallback: z.boolean(),
  allowUnsafeLocal: z.boolean(),
  network: networkModeSchema,
  ask: askModeSchema,
  approvalTimeoutSeconds: z
    .number()
    .int()
    .positive()
    .max(7 * 24 * 3600),
  limits: agentLimitsSchema.partial(),
  classificationCeiling: classificationSchema,
  labels: classificationLabelsSchema,
  denylist: z.array(z.string().min(1).max(1024)).max(256),
  allowlist: z.array(z.string().min(1).max(1024)).max(256),
  runtimes: z.array(z.string().min(1).max(40)).max(16),
  mcpServers: z.array(mcpServerSchema).max(32),
  /** Workspace paths a sandbox mounts read-only, added to `defaultProtectedPaths` (see protected-paths.ts); a role's always apply too. */
  protectedPaths: z.array(protectedPathSchema).max(64)
})

/** Checks across keys that a field schema alone cannot express. */
function checkProfile(profile: { unsafeFallback?: boolean; isolation?: string; mcpServers?: { name: string }[] }, ctx: z.RefinementCtx): void {
  if (profile.unsafeFallback && profile.isolation === 'required') {
    ctx.addIssue({ code: 'custom', path: ['unsafeFallback'], message: 'unsafeFallback is only valid with isolation "preferred" or "none"' })
  }
  const names = new Set<string>()
  for (const [index, server] of (profile.mcpServers ?? []).entries()) {
    if (names.has(server.name)) ctx.addIssue({ code: 'custom', path: ['mcpServers', index, 'name'], message: `duplicate server name ${server.name}` })
    names.add(server.name)
  }
}

/**
 * The profile JSON of SPEC §6.1 (what `airlock agent create --profile` and the UI form read).
 * Every key is optional; unknown keys are refused, because a typo must never widen or silently
 * drop a restriction.
 */
export const agentProfileSchema = profileFields.partial().strict().superRefine(checkProfile)

/**
 * A role's defaults: a profile without `role`. Its agents inherit these values and can never
 * exceed them (the ceiling rules are documented in src/main/console/role-ceiling.ts).
 */
export const roleDefaultsSchema = profileFields.omit({ role: true }).partial().strict().superRefine(checkProfile)

/** A profile with every key decided (what `effectiveProfile` returns and the IPC shows). */
export const effectiveAgentProfileSchema = profileFields.extend({ role: roleIdSchema.optional(), limits: agentLimitsSchema }).strict()

/** A profile as given (every key optional). */
export type AgentProfile = z.infer<typeof agentProfileSchema>
/** An upstream MCP server of a profile. */
export type McpServerConfig = z.infer<typeof mcpServerSchema>
/** A capability name. */
export type CapabilityName = z.infer<typeof capabilityNameSchema>
/** A classification level. */
export type Classification = z.infer<typeof classificationSchema>
/** Per-agent limits, all set. */
export type AgentLimits = z.infer<typeof agentLimitsSchema>

/** A profile with every key decided: the agent's own values over its role's over these defaults. */
export type EffectiveAgentProfile = Required<Omit<AgentProfile, 'role' | 'limits'>> & { role?: string; limits: AgentLimits }

/** Defaults for a new agent (SPEC §6.1). */
export const agentProfileDefaults: EffectiveAgentProfile = {
  capabilities: ['files', 'shell', 'python', 'nodejs'],
  providers: ['bubblewrap', 'docker'],
  isolation: 'required',
  unsafeFallback: false,
  allowUnsafeLocal: false,
  network: 'none',
  ask: 'on_risk',
  approvalTimeoutSeconds: 600,
  limits: { timeoutSeconds: 120, cpuSeconds: 60, memoryMb: 1024, pids: 256, diskMb: 2048, outputBytes: 1024 * 1024 },
  classificationCeiling: 'INTERNAL',
  labels: {},
  denylist: [],
  allowlist: [],
  runtimes: [],
  mcpServers: [],
  protectedPaths: []
}

/**
 * The provider order an agent follows when neither it nor its role names one: the operator's
 * `code_execution.providers` setting (the Providers view's order), read at every call — not a
 * copy taken when the agent was made. Entries that are not code-execution providers are left out;
 * an order with none left falls back to the product default.
 */
export function operatorProviderOrder(configured: readonly (string | { providerId: string })[]): CodeProviderId[] {
  const ids = configured.map((entry) => (typeof entry === 'string' ? entry : entry.providerId))
  const known = [...new Set(ids)].filter((id): id is CodeProviderId => codeProviderIdSchema.safeParse(id).success)
  return known.length > 0 ? known : [...agentProfileDefaults.providers]
}

/** The product defaults with the operator's provider order (what an agent that sets nothing gets). */
export function operatorDefaults(configured: readonly (string | { providerId: string })[]): EffectiveAgentProfile {
  return { ...agentProfileDefaults, providers: operatorProviderOrder(configured) }
}

/**
 * True when the profile lets an execution fall back to `trusted_local` (no isolation) when no
 * isolating provider can serve it: `unsafeFallback`, authorised by `allowUnsafeLocal`, and an
 * isolation policy that is not `required`. The policy flags such calls `isolation_fallback`.
 */
export function allowsUnsafeFallback(profile: Pick<EffectiveAgentProfile, 'unsafeFallback' | 'allowUnsafeLocal' | 'isolation'>): boolean {
  return profile.unsafeFallback && profile.allowUnsafeLocal && profile.isolation !== 'required'
}

/** One line per zod issue, each naming the path of the bad field (`limits.pids: ...`). */
export function describeIssues(error: z.ZodError, root = 'input'): string {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : root}: ${issue.message}`).join('; ')
}

/** A role's defaults (a profile without `role`). */
export type RoleDefaults = z.infer<typeof roleDefaultsSchema>

/** A role as shown: defaults its agents inherit and cannot exceed, MCP secrets as `redactedSecret`. */
export const roleViewSchema = z.object({
  id: roleIdSchema,
  name: z.string().min(1).max(200),
  defaults: roleDefaultsSchema,
  /** Set when the stored defaults no longer validate (hand-edited database): its agents cannot start sessions. */
  defaultsError: z.string().optional(),
  /** How many agents have this role. */
  agentCount: z.number().int().nonnegative(),
  createdAt: z.string()
})

/** A role as the console shows it. */
export type RoleView = z.infer<typeof roleViewSchema>

/** What creating or changing a role takes: its id, an optional display name (default: the id) and its defaults. */
export const roleInputSchema = z.object({ id: roleIdSchema, name: z.string().min(1).max(200).optional(), defaults: roleDefaultsSchema }).strict()

/** Input of a role save. */
export type RoleInput = z.infer<typeof roleInputSchema>

/**
 * What shows in place of a secret (an MCP server's `env` or `headers` value) in every agent view.
 * An update that sends it back for the same server and key keeps the stored value.
 */
export const redactedSecret = '<redacted>'

/** An agent as every console and `agent list --json` show it: never its token or token hash. */
export const agentViewSchema = z.object({
  id: agentIdSchema,
  name: z.string().min(1).max(200),
  role: roleIdSchema.nullable(),
  enabled: z.boolean(),
  /** The agent's own profile (without `role`), secrets shown as `redactedSecret`. */
  profile: agentProfileSchema,
  /** Set when the stored profile no longer validates (hand-edited database): the agent cannot start sessions. */
  profileError: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string()
})

/** An agent as shown. */
export type AgentView = z.infer<typeof agentViewSchema>

/** A value the role's ceiling changed in an agent's effective profile, and why. */
export const ceilingClampSchema = z.object({ path: z.string(), message: z.string() })

/** One clamp by a role's ceiling. */
export type CeilingClamp = z.infer<typeof ceilingClampSchema>

/** What an agent session looked like: when it started, was last seen and ended, and why. */
export const sessionViewSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  transport: z.string(),
  taint: classificationSchema,
  startedAt: z.string(),
  lastSeenAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  endReason: z.string().nullable()
})

/** A session as shown. */
export type SessionView = z.infer<typeof sessionViewSchema>

/** What happened to an agent (the `onChange` of the agent service and the `agents.changed` event). */
export const agentChangeSchema = z.enum(['created', 'updated', 'disabled', 'enabled', 'removed'])

/** A change to an agent. */
export type AgentChange = z.infer<typeof agentChangeSchema>

/** What happened to a role (the `agents.changed` event carries `roleId` then). */
export const roleChangeSchema = z.enum(['created', 'updated', 'removed'])

/** A change to a role. */
export type RoleChange = z.infer<typeof roleChangeSchema>

/** Every agent token starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const agentTokenPrefix = 'alk_'
