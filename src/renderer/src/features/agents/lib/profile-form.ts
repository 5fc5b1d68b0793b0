import {
  agentProfileDefaults,
  askModeSchema,
  capabilityNameSchema,
  classificationSchema,
  codeProviderIdSchema,
  type AgentView,
  type CapabilityName,
  type CodeProviderId,
  type EffectiveAgentProfile,
  type RoleView
} from '@shared/agents'
import { agentsContract } from '@shared/ipc/agents'
import { isolationPolicySchema, networkModeSchema } from '@shared/resources'
import type { z } from 'zod'

/** The limit keys of a profile, in the order the form shows them. */
export const limitKeys = ['timeoutSeconds', 'cpuSeconds', 'memoryMb', 'pids', 'diskMb', 'outputBytes'] as const

/** A limit key. */
export type LimitKey = (typeof limitKeys)[number]

export type { CodeProviderId }

/** Every option the form offers, from the shared schemas (never a second list). */
export const profileOptions = {
  capabilities: capabilityNameSchema.options,
  providers: codeProviderIdSchema.options,
  isolation: isolationPolicySchema.options,
  network: networkModeSchema.options,
  ask: askModeSchema.options,
  classification: classificationSchema.options
}

/**
 * The profile form as typed: text as entered, `''` meaning "not set here, inherited from the
 * role or the defaults" (SPEC §6.1: every profile key is optional).
 */
export type ProfileFormValues = {
  agentId: string
  name: string
  role: string
  inheritCapabilities: boolean
  capabilities: CapabilityName[]
  inheritProviders: boolean
  /** In order of preference; only the checked ones are kept. */
  providers: { id: CodeProviderId; on: boolean }[]
  isolation: string
  unsafeFallback: '' | 'true' | 'false'
  allowUnsafeLocal: '' | 'true' | 'false'
  network: string
  ask: string
  approvalTimeoutSeconds: string
  classificationCeiling: string
  limits: Record<LimitKey, string>
  /** One entry per line. */
  denylist: string
  allowlist: string
  runtimes: string
  /** JSON text (an array of servers / a labels object); empty when not set. */
  mcpServers: string
  labels: string
}

/**
 * What a role leaves an agent that sets nothing itself: the role's defaults over Airlock's, whose
 * provider order is the operator's (`operatorOrder`, the Providers view's) when it is known.
 */
export function inheritedProfile(role: Pick<RoleView, 'defaults'> | undefined, operatorOrder?: readonly CodeProviderId[]): EffectiveAgentProfile {
  const defaults = role?.defaults ?? {}
  const base = operatorOrder && operatorOrder.length > 0 ? { ...agentProfileDefaults, providers: [...operatorOrder] } : agentProfileDefaults
  return { ...base, ...defaults, limits: { ...base.limits, ...defaults.limits } } as EffectiveAgentProfile
}

function providerRows(chosen: readonly CodeProviderId[] | undefined, inherited: readonly CodeProviderId[]): ProfileFormValues['providers'] {
  const first = chosen ?? inherited
  const rest = profileOptions.providers.filter((id) => !first.includes(id))
  return [...first.map((id) => ({ id, on: true })), ...rest.map((id) => ({ id, on: false }))]
}

const flag = (value: boolean | undefined): ProfileFormValues['unsafeFallback'] => (value === undefined ? '' : value ? 'true' : 'false')
const json = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2))

/** The form's values for a new agent (nothing set: everything inherited) or an existing one (its own profile). */
export function formValuesFrom(agent: AgentView | undefined, inherited: EffectiveAgentProfile): ProfileFormValues {
  const profile = agent?.profile ?? {}
  const limits = profile.limits ?? {}
  return {
    agentId: agent?.id ?? '',
    name: agent && agent.name !== agent.id ? agent.name : '',
    role: agent?.role ?? '',
    inheritCapabilities: profile.capabilities === undefined,
    capabilities: profile.capabilities ?? inherited.capabilities,
    inheritProviders: profile.providers === undefined,
    providers: providerRows(profile.providers, inherited.providers),
    isolation: profile.isolation ?? '',
    unsafeFallback: flag(profile.unsafeFallback),
    allowUnsafeLocal: flag(profile.allowUnsafeLocal),
    network: profile.network ?? '',
    ask: profile.ask ?? '',
    approvalTimeoutSeconds: profile.approvalTimeoutSeconds?.toString() ?? '',
    classificationCeiling: profile.classificationCeiling ?? '',
    limits: Object.fromEntries(limitKeys.map((key) => [key, limits[key]?.toString() ?? ''])) as Record<LimitKey, string>,
    denylist: (profile.denylist ?? []).join('\n'),
    allowlist: (profile.allowlist ?? []).join('\n'),
    runtimes: (profile.runtimes ?? []).join('\n'),
    mcpServers: profile.mcpServers && profile.mcpServers.length > 0 ? json(profile.mcpServers) : '',
    labels: profile.labels && Object.keys(profile.labels).length > 0 ? json(profile.labels) : ''
  }
}

const text = (value: string) => (value.trim() === '' ? undefined : value.trim())
// A number field passes what was typed to the schema (NaN for words), so the schema's own message shows.
const number = (value: string) => (value.trim() === '' ? undefined : Number(value.trim()))
const bool = (value: '' | 'true' | 'false') => (value === '' ? undefined : value === 'true')
const lines = (value: string) => {
  const entries = value
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  return entries.length > 0 ? entries : undefined
}

/** The profile the form describes (keys left empty are absent), or the fields whose JSON does not parse. */
export function profileFromValues(values: ProfileFormValues): { profile: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {}
  const parseJson = (field: 'mcpServers' | 'labels') => {
    if (values[field].trim() === '') return undefined
    try {
      return JSON.parse(values[field]) as unknown
    } catch (error) {
      errors[field] = `not valid JSON: ${(error as Error).message}`
      return undefined
    }
  }
  const limits = Object.fromEntries(limitKeys.flatMap((key) => (number(values.limits[key]) === undefined ? [] : [[key, number(values.limits[key])]])))
  const profile = {
    capabilities: values.inheritCapabilities ? undefined : values.capabilities,
    providers: values.inheritProviders ? undefined : values.providers.filter((row) => row.on).map((row) => row.id),
    isolation: text(values.isolation),
    unsafeFallback: bool(values.unsafeFallback),
    allowUnsafeLocal: bool(values.allowUnsafeLocal),
    network: text(values.network),
    ask: text(values.ask),
    approvalTimeoutSeconds: number(values.approvalTimeoutSeconds),
    classificationCeiling: text(values.classificationCeiling),
    limits: Object.keys(limits).length > 0 ? limits : undefined,
    denylist: lines(values.denylist),
    allowlist: lines(values.allowlist),
    runtimes: lines(values.runtimes),
    mcpServers: parseJson('mcpServers'),
    labels: parseJson('labels')
  }
  return { profile: Object.fromEntries(Object.entries(profile).filter(([, value]) => value !== undefined)), errors }
}

/** What `agents.create` takes. */
export type CreateAgentInput = z.output<typeof agentsContract.calls.create.input>
/** What `agents.update` takes. */
export type UpdateAgentInput = z.output<typeof agentsContract.calls.update.input>

/** The form field an issue of the create/update schema belongs to (`limits.pids`, `mcpServers`, `agentId`). */
export function fieldOfIssue(path: readonly PropertyKey[]): string {
  const rest = path[0] === 'profile' ? path.slice(1) : path
  const [head, next] = rest
  if (head === undefined) return ''
  if (head === 'limits' && typeof next === 'string') return `limits.${next}`
  return String(head)
}

function issueText(issue: z.core.$ZodIssue): string {
  const rest = issue.path[0] === 'profile' ? issue.path.slice(1) : issue.path
  const inner = rest.slice(fieldOfIssue(issue.path).startsWith('limits.') ? 2 : 1)
  const where =
    rest[0] === 'denylist' || rest[0] === 'allowlist' || rest[0] === 'runtimes'
      ? typeof inner[0] === 'number'
        ? `line ${inner[0] + 1}: `
        : ''
      : inner.length > 0
        ? `${inner.map(String).join('.')}: `
        : ''
  return `${where}${issue.message}`
}

/**
 * Checks the form with the schema main checks the call with (`agents.create` / `agents.update`
 * input), so every problem main would refuse shows at its field before anything is sent.
 */
export function parseProfileForm(
  values: ProfileFormValues,
  mode: 'create' | 'edit',
  existingIds: readonly string[] = []
): { ok: true; input: CreateAgentInput | UpdateAgentInput } | { ok: false; errors: Record<string, string> } {
  const { profile, errors } = profileFromValues(values)
  const name = text(values.name)
  const raw =
    mode === 'create'
      ? { agentId: values.agentId.trim(), ...(name ? { name } : {}), ...(values.role ? { role: values.role } : {}), profile }
      : { agentId: values.agentId, ...(name ? { name } : {}), role: values.role ? values.role : null, profile }
  const parsed = (mode === 'create' ? agentsContract.calls.create.input : agentsContract.calls.update.input).safeParse(raw)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOfIssue(issue.path)
      errors[field] ??= issueText(issue)
    }
  }
  if (mode === 'create' && !errors.agentId && existingIds.includes(values.agentId.trim()))
    errors.agentId = `An agent with the id ${values.agentId.trim()} already exists.`
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors }
  return { ok: true, input: parsed.data }
}
