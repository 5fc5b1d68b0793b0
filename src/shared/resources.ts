import { z } from 'zod'
import { protectedPathSchema } from './protected-paths'

/** A resource kind: a built-in one or any other non-empty name (custom providers). */
export const resourceKindSchema = z.string().min(1).max(100)

/** How long a handle lives and who owns it (SPEC §3.1). */
export const resourceScopeSchema = z.enum(['global', 'agent', 'session', 'request', 'execution', 'action_call'])

/** Lifecycle of a requirement/handle (SPEC §3.1). */
export const resourceStatusSchema = z.enum(['declared', 'pending_approval', 'ensuring', 'ready', 'unhealthy', 'releasing', 'released', 'failed'])

/** Network access a resource may have. */
export const networkModeSchema = z.enum(['none', 'proxy', 'full'])

/** The four isolation axes a code-execution provider reports from observed facts (SPEC §3.4). */
export const isolationAxisNames = ['processContained', 'hostFilesystemRestricted', 'privilegeEscalationBlocked', 'syscallsRestricted'] as const

/** The isolation facts of a provider: four booleans plus the mechanism and network mode. */
export const isolationFactsSchema = z
  .object({
    processContained: z.boolean(),
    hostFilesystemRestricted: z.boolean(),
    privilegeEscalationBlocked: z.boolean(),
    syscallsRestricted: z.boolean(),
    mechanism: z.string().min(1),
    networkMode: networkModeSchema,
    /** `separate`: the program's system calls are served by a kernel of the sandbox's own (gVisor), not the host's. Absent: the host kernel. */
    kernel: z.enum(['host', 'separate']).optional()
  })
  .strict()

/**
 * Isolation as a requirement: the axes demanded (booleans). A name such as `"required"` in its
 * place is rejected: names are not evidence.
 */
export const isolationDemandSchema = z
  .object({
    processContained: z.boolean().optional(),
    hostFilesystemRestricted: z.boolean().optional(),
    privilegeEscalationBlocked: z.boolean().optional(),
    syscallsRestricted: z.boolean().optional(),
    mechanism: z.string().min(1).optional(),
    networkMode: networkModeSchema.optional()
  })
  .strict()

/** The public isolation selection policy for code execution. */
export const isolationPolicySchema = z.enum(['required', 'preferred', 'none'])

/** Resource limits a provider enforces where it can. */
export const resourceLimitsSchema = z
  .object({
    cpuSeconds: z.number().positive().optional(),
    memoryMb: z.number().positive().optional(),
    pids: z.number().int().positive().optional(),
    diskMb: z.number().positive().optional()
  })
  .strict()

const pathList = z.array(z.string().min(1).max(4096)).max(256)

/** The policy a resource runs under (SPEC §3.1). Unknown keys are refused: a typo must not widen access. */
export const resourcePolicySchema = z
  .object({
    autoAllow: z.boolean().optional(),
    approvalMode: z.enum(['auto', 'always', 'never']).optional(),
    approvalHandler: z.string().min(1).max(100).optional(),
    workspaceRoots: pathList.optional(),
    pathAllowlist: pathList.optional(),
    pathDenylist: pathList.optional(),
    allowedCommandPrefixes: z.array(z.string().min(1).max(1000)).max(1000).optional(),
    networkMode: networkModeSchema.optional(),
    timeoutSeconds: z.number().positive().max(86_400).optional(),
    maxOutputBytes: z.number().int().positive().optional(),
    readOnly: z.boolean().optional(),
    allowCreate: z.boolean().optional(),
    allowUpdate: z.boolean().optional(),
    allowDelete: z.boolean().optional(),
    limits: resourceLimitsSchema.optional(),
    /**
     * Workspace-relative paths a sandbox that binds a workspace whole mounts read-only (see
     * protected-paths.ts); when absent, the defaults. A list that leaves out a default is widened
     * back to include it by the providers: the defaults are a floor.
     */
    protectedPaths: z.array(protectedPathSchema).max(128).optional(),
    /**
     * Workspace-relative paths labelled above what the calls on this resource may read (see
     * src/main/core/policy/labelled-paths.ts): a sandbox that binds a workspace whole puts an empty
     * read-only mount over each, so no program in it sees them. Only a provider whose probe says
     * `hidesPaths` serves a policy that has some (the others cannot keep them out: fail closed).
     */
    hiddenPaths: z.array(protectedPathSchema).max(256).optional()
  })
  .strict()

/** A provider candidate: an id, or an id with config merged over the requirement's for it only. */
export const resourceCandidateSchema = z.union([
  z.string().min(1).max(100),
  z.object({ providerId: z.string().min(1).max(100), config: z.record(z.string(), z.unknown()).optional() }).strict()
])

const capabilities = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  if (!('isolation' in value)) return
  const parsed = isolationDemandSchema.safeParse(value.isolation)
  if (!parsed.success) {
    ctx.addIssue({
      code: 'custom',
      path: ['isolation'],
      message: 'isolation must be an object of axes (e.g. {processContained: true}); a name is not evidence'
    })
  }
})

/** How an action's workspace is granted to a resource (the grant itself arrives with code execution). */
export const workspaceAccessSchema = z.object({ mode: z.enum(['snapshot', 'read_only', 'read_write']) }).strict()

/** What an action needs, before defaults (SPEC §3.1); `declare` fills the defaults. */
export const resourceRequirementSchema = z
  .object({
    kind: resourceKindSchema,
    requirementId: z.string().min(1).max(200).optional(),
    scope: resourceScopeSchema.optional(),
    ownerId: z.string().min(1).max(200).optional(),
    resourceKey: z.string().min(1).max(200).optional(),
    providerId: z.string().min(1).optional(),
    providerCandidates: z.array(resourceCandidateSchema).max(32).optional(),
    requiredCapabilities: capabilities.optional(),
    preferredCapabilities: capabilities.optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    policy: resourcePolicySchema.optional(),
    approvalRequired: z.boolean().optional(),
    reuseKey: z.string().min(1).max(10_000).optional(),
    workspaceAccess: workspaceAccessSchema.optional(),
    actionCallId: z.string().min(1).max(200).optional(),
    meta: z.record(z.string(), z.unknown()).optional()
  })
  .strict()

/** What a provider's probe says about it on this host. */
export const providerProbeSchema = z.object({
  available: z.boolean(),
  capabilities: z.record(z.string(), z.unknown()).optional(),
  reason: z.string().optional(),
  diagnostics: z.array(z.string()).optional()
})

/** The serialisable part of a handle (what IPC, events and the store may carry). */
export const resourceHandleViewSchema = z.object({
  handleId: z.string(),
  requirementId: z.string(),
  kind: z.string(),
  scope: resourceScopeSchema,
  ownerId: z.string().optional(),
  resourceKey: z.string(),
  providerId: z.string(),
  status: resourceStatusSchema,
  refCount: z.number().int().nonnegative(),
  policy: resourcePolicySchema,
  meta: z.record(z.string(), z.unknown()),
  actionCallId: z.string().optional(),
  createdAt: z.string(),
  /** For consoles: the agent the handle serves and the session it belongs to, when known (from its owner or its call). */
  agentId: z.string().optional(),
  sessionId: z.string().optional()
})

export type ResourceScope = z.infer<typeof resourceScopeSchema>
export type ResourceStatus = z.infer<typeof resourceStatusSchema>
export type NetworkMode = z.infer<typeof networkModeSchema>
export type IsolationFacts = z.infer<typeof isolationFactsSchema>
export type IsolationDemand = z.infer<typeof isolationDemandSchema>
export type IsolationPolicy = z.infer<typeof isolationPolicySchema>
export type ResourcePolicy = z.infer<typeof resourcePolicySchema>
export type ResourceCandidate = z.infer<typeof resourceCandidateSchema>
export type ResourceRequirementInput = z.input<typeof resourceRequirementSchema>
export type ProviderProbe = z.infer<typeof providerProbeSchema>
export type ResourceHandleView = z.infer<typeof resourceHandleViewSchema>

/** Every event type the core emits (SPEC §3.5): the host's bus and the console's event filter. */
export const resourceEventTypes = [
  'execution_resource.declared',
  'execution_resource.approval_required',
  'execution_resource.ensuring',
  'execution_resource.ready',
  'execution_resource.unhealthy',
  'execution_resource.releasing',
  'execution_resource.released',
  'execution_resource.failed',
  'policy.approval.requested',
  'policy.approval.approved',
  'policy.approval.denied',
  'policy.approval.pending'
] as const

/** One of the core's event types. */
export type ResourceEventType = (typeof resourceEventTypes)[number]
