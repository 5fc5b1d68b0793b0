import { z } from 'zod'
import {
  agentChangeSchema,
  agentIdSchema,
  agentProfileSchema,
  agentViewSchema,
  ceilingClampSchema,
  effectiveAgentProfileSchema,
  roleChangeSchema,
  roleIdSchema,
  roleInputSchema,
  roleViewSchema,
  sessionViewSchema
} from '../agents'
import type { NamespaceSpec } from './contract'

const agentIdInput = z.object({ agentId: agentIdSchema }).strict()
const agentName = z.string().trim().min(1).max(200)

/** An agent with what it runs under: the effective profile, what its role clamped, and its workspace. */
export const agentDetailSchema = z.object({
  agent: agentViewSchema,
  /** Absent when the stored profile or its role's defaults no longer validate (the agent runs nothing). */
  effectiveProfile: effectiveAgentProfileSchema.optional(),
  clamped: z.array(ceilingClampSchema),
  problem: z.string().optional(),
  workspace: z.string()
})

/** An agent as the detail pane shows it. */
export type AgentDetail = z.infer<typeof agentDetailSchema>

/**
 * How an MCP client connects as an agent (SPEC §8, the Agents view): the gateway's URL and
 * ready-to-paste snippets. The token appears in them only as the placeholder `<token>`.
 */
export const agentConnectionSchema = z.object({
  url: z.string(),
  snippets: z.object({
    /** A generic MCP JSON `mcpServers` entry (Streamable HTTP, bearer header). */
    generic: z.string(),
    /** The `claude mcp add --transport http ...` command. */
    claudeCode: z.string(),
    /** Cursor's `mcp.json`. */
    cursor: z.string(),
    /** A stdio entry through `airlock mcp-stdio` (token from `AIRLOCK_TOKEN`). */
    stdio: z.string()
  })
})

/** An agent's connection details. */
export type AgentConnection = z.infer<typeof agentConnectionSchema>

/**
 * The `agents` namespace (SPEC §6.1, §11 Agents view): agents, their roles and sessions. No output
 * ever holds a token hash; a token appears once, in the result of `create` or `rotateToken`.
 * MCP server secrets (of an agent or a role) appear as `redactedSecret`; sending the marker back
 * in `update` or `saveRole` keeps them.
 */
export const agentsContract = {
  calls: {
    list: { input: z.object({}).strict(), output: z.array(agentViewSchema) },
    get: { input: agentIdInput, output: agentDetailSchema },
    create: {
      input: z.object({ agentId: agentIdSchema, name: agentName.optional(), role: roleIdSchema.optional(), profile: agentProfileSchema.optional() }).strict(),
      output: z.object({ agent: agentViewSchema, token: z.string(), workspace: z.string() })
    },
    /** `profile` replaces the stored profile, `patch` is laid over it; `role: null` clears the role. */
    update: {
      input: z
        .object({
          agentId: agentIdSchema,
          name: agentName.optional(),
          role: roleIdSchema.nullable().optional(),
          profile: agentProfileSchema.optional(),
          patch: agentProfileSchema.optional()
        })
        .strict()
        .refine((input) => input.profile === undefined || input.patch === undefined, { message: 'give a whole profile or a patch, not both', path: ['patch'] }),
      output: agentViewSchema
    },
    setEnabled: { input: z.object({ agentId: agentIdSchema, enabled: z.boolean() }).strict(), output: agentViewSchema },
    /** The workspace is moved to `workspaces/.removed/<id>-<timestamp>`, never deleted. */
    remove: { input: agentIdInput, output: z.object({ workspaceMovedTo: z.string().optional() }) },
    rotateToken: { input: agentIdInput, output: z.object({ token: z.string() }) },
    /** The gateway URL (of the running gateway on this home, else the configured port) and connection snippets. */
    connection: { input: agentIdInput, output: agentConnectionSchema },
    sessions: {
      input: z.object({ agentId: agentIdSchema, limit: z.number().int().min(1).max(1000).optional() }).strict(),
      output: z.array(sessionViewSchema)
    },
    listRoles: { input: z.object({}).strict(), output: z.array(roleViewSchema) },
    saveRole: { input: roleInputSchema, output: roleViewSchema },
    removeRole: { input: z.object({ roleId: roleIdSchema }).strict(), output: z.object({ removed: z.literal(true) }) }
  },
  events: {
    /** An agent (`agentId`) or a role (`roleId`) changed: refresh the list and any open detail. */
    changed: {
      payload: z.union([
        z.object({ agentId: z.string(), change: agentChangeSchema }),
        z.object({ roleId: z.string(), change: roleChangeSchema, agentIds: z.array(z.string()) })
      ])
    }
  }
} satisfies NamespaceSpec

/** The `changed` event's payload. */
export type AgentsChangedEvent = z.infer<typeof agentsContract.events.changed.payload>
