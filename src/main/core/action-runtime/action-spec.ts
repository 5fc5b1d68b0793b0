import type { z } from 'zod'
import type { EffectiveAgentProfile } from '@shared/agents'
import type { ExecutionResourceManager } from '../manager'
import type { OutputListener } from '../live-resources'
import type { ResourceHandle, ResourcePolicy, ResourceRequirementInput } from '../types'

/** How an action call ended (SPEC §5.1). */
export type ActionStatus = 'success' | 'error' | 'blocked' | 'approval_required' | 'timed_out' | 'cancelled'

/** A file an action produced (an output of a code run, a screenshot): where it is and what it holds. */
export type ActionArtifact = { name: string; path: string; bytes: number; sha256: string; mediaType?: string }

/**
 * A network endpoint a call touched (lineage, SPEC §6.3). Through the egress proxy it also says
 * what was decided, at which address, by which rule, and how many bytes went each way.
 */
export type LineageEndpoint = {
  kind: 'http' | 'mcp' | 'tcp'
  endpoint: string
  decision?: 'allowed' | 'denied'
  address?: string
  rule?: string
  reason?: string
  bytesUp?: number
  bytesDown?: number
}

/** The result every action call returns, to the agent and to history (SPEC §5.1). */
export type ActionResult = {
  ok: boolean
  status: ActionStatus
  data?: unknown
  artifacts: ActionArtifact[]
  meta: Record<string, unknown>
  diagnostics: string[]
  error?: { code: string; message: string }
}

/** Who is calling: the agent, its session, its workspace and its decided profile. */
export type ActionAgent = {
  agentId: string
  sessionId: string
  /** The real path of the agent's workspace (`<home>/workspaces/<agent-id>`). */
  workspace: string
  /** The agent's profile with its role's defaults and the product defaults filled in. */
  profile: EffectiveAgentProfile
  /** The tools the agent's capabilities enabled (names); a call to any other is blocked. */
  tools: ReadonlySet<string>
  /** Values Airlock knows to be secret for this agent (MCP env and headers...): redacted from records. */
  secrets?: readonly string[]
}

/** One call of a tool by an agent. `callId` is assigned (a UUID) when absent. */
export type ActionCall = {
  callId?: string
  tool: string
  input: unknown
  agent: ActionAgent
  /** Cancels the call: reaches the running process or container. */
  signal?: AbortSignal
}

/** What an executor is given: the validated input, the live resources, and the call's context. */
export type ActionContext<I = unknown> = {
  callId: string
  tool: string
  input: I
  agent: ActionAgent
  manager: ExecutionResourceManager
  /** Live resources of the spec's `executionResources`, by name (ensured before the executor runs). */
  resources: Record<string, unknown>
  handles: Record<string, ResourceHandle>
  signal: AbortSignal
  /**
   * Ensures a session-scoped resource once per session and keeps it until the session ends (a warm
   * container, the session's shell): later calls of the same session reuse it.
   */
  holdForSession(requirement: ResourceRequirementInput): Promise<ResourceHandle>
  /** Records a network endpoint this call touched. */
  touched(endpoint: LineageEndpoint): void
  /** Workspace paths this call's sandbox must hide (the policy's `hiddenPaths`); empty when nothing is labelled above what it may read. */
  hiddenPaths?: readonly string[]
  /** Told a run's output as it arrives (pass it to the runner's `onOutput`); the call's live output. */
  output?: OutputListener
  /** Lines of the live output holding this text are not shown (a runner's own report, such as run_command's directory marker). */
  hideOutput?: (text: string) => void
}

/** What an executor returns; the dispatcher turns it into an `ActionResult`. */
export type ActionOutcome = {
  status?: ActionStatus
  data?: unknown
  artifacts?: ActionArtifact[]
  meta?: Record<string, unknown>
  diagnostics?: string[]
  error?: { code: string; message: string }
}

/** The facts history keeps of a call's execution (exit code, output, provider), when it had one. */
export type ExecutionFacts = {
  exitCode?: number
  stdout?: string
  stderr?: string
  provider?: Record<string, unknown>
}

/**
 * A model-visible operation (SPEC §5.1): name, description, input schema, executor, the resources
 * it needs (declared here, ensured by the dispatcher, released after the call), a default policy
 * and whether it needs the operator. Actions never start long-lived resources themselves.
 */
export type ActionSpec<S extends z.ZodType = z.ZodType> = {
  name: string
  description: string
  inputSchema: S
  executor: { execute(context: ActionContext<z.output<S>>): Promise<ActionOutcome> }
  /** Requirements by name, fixed or computed from the call (the agent's workspace, limits...). */
  executionResources?: Record<string, ResourceRequirementInput> | RequirementsOf<z.output<S>>
  defaultPolicy?: ResourcePolicy
  /** `always`: every call waits for the operator; `never`/absent: hooks decide. */
  approval?: 'always' | 'never'
  /** Whether the call writes or executes (what `ask: always` asks about); read-only tools say false. */
  effects: 'read' | 'write' | 'execute'
  /** A short, secret-free summary of an input for the approval queue and history. */
  summarize?(input: z.output<S>): string
  /**
   * What the operator sees before deciding a call that asks (the approval queue's preview): for the
   * file tools, the unified diff the call would make. Read-only; the dispatcher redacts it.
   */
  preview?(context: { input: z.output<S>; agent: ActionAgent }): Promise<string | undefined> | string | undefined
  /**
   * The input as the call will run it, completed from the session's state before the policy sees
   * it (`run_command` names the session's working directory as `cwd`). Policy, approval, rules,
   * batching, history and the executor all see this one input, so what the operator approves is
   * what runs. It may only make implicit facts explicit: its result is validated again.
   */
  resolveInput?(context: { input: z.output<S>; agent: ActionAgent }): z.output<S>
}

/**
 * Requirements computed from a call. Declared through a method so that a spec with a narrower
 * input still counts as an `AnyActionSpec` (methods are compared bivariantly).
 */
type RequirementsOf<I> = { compute(context: { input: I; agent: ActionAgent; callId: string }): Record<string, ResourceRequirementInput> }['compute']

/** Any action spec, whatever its schema. */
export type AnyActionSpec = ActionSpec<z.ZodType>
