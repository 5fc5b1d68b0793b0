import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { SessionHolder } from '../actions/mcp_tools'
import { SessionClosedError, type AgentSessions } from '../console/agent-sessions'
import type { ActionAgent, ActionRegistry, ActionResult } from '../core'
import { reportApprovalProgress, type ApprovalWaits } from './approval-progress'
import type { CallLimits } from './call-limits'
import { gatewayErrorCodes, GatewayRefusal } from './gateway-errors'
import { checkToolCall, listSessionTools } from './tool-catalog'
import { toolCallResult } from './tool-result'

/** What one MCP session needs from the host and the gateway. */
export type GatewaySessionDeps = {
  sessions: Pick<AgentSessions, 'execute' | 'agentOf'>
  registry: Pick<ActionRegistry, 'resolve'>
  /** Where the session's upstream MCP connections are held (the dispatcher's session holds). */
  holds: SessionHolder
  limits: CallLimits
  approvalWaits?: ApprovalWaits
  appVersion: string
  now: () => number
}

/**
 * One MCP session of one agent: an SDK `Server` on its own `StreamableHTTPServerTransport`, whose
 * MCP session id is the Airlock session id (so history, the ledger and the client name the same
 * session). It lists the agent's tools and runs `tools/call` through `AgentSessions.execute` with
 * the request's abort signal (the client's `notifications/cancelled`, the session closing, or the
 * client dropping the HTTP response all cancel the call).
 */
export class GatewaySession {
  readonly transport: StreamableHTTPServerTransport
  readonly server: Server
  /** Calls in flight (an idle session has none). */
  private readonly calls = new Set<Promise<ActionResult>>()
  /** Per JSON-RPC request id: aborted when the HTTP response carrying it closes before it finished. */
  private readonly disconnects = new Map<RequestId, AbortController>()
  private lastActive: number
  /** Why the session ends, once that is decided (the transport's close handler reads it). */
  endReason: string | undefined

  /** The Airlock (and MCP) session id; empty until the SDK accepted the initialize and the session was started. */
  sessionId = ''
  /** Why the Airlock session could not be started (the agent was disabled meanwhile), if so. */
  private startRefused = false

  /**
   * `start` opens the Airlock session and returns its id; it runs only once the SDK has accepted
   * the initialize (headers, content type, JSON-RPC shape), so a refused initialize records no
   * session at all.
   */
  constructor(
    readonly agentId: string,
    private readonly deps: GatewaySessionDeps,
    handlers: { initialized(session: GatewaySession): void; closed(session: GatewaySession): void },
    start: () => string
  ) {
    this.lastActive = deps.now()
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => {
        try {
          this.sessionId = start()
        } catch (error) {
          if (!(error instanceof SessionClosedError)) throw error
          // The agent was disabled or removed since its token was checked: the transport is
          // closed at once below, and the SDK answers the initialize "Session not found".
          this.startRefused = true
          return randomUUID()
        }
        return this.sessionId
      },
      onsessioninitialized: async () => {
        if (this.startRefused) return this.close('agent_disabled')
        handlers.initialized(this)
      },
      onsessionclosed: () => {
        this.endReason ??= 'closed_by_client'
      }
    })
    // Set before connect: the protocol chains this handler.
    this.transport.onclose = () => handlers.closed(this)
    this.server = new Server(
      { name: 'airlock', title: `Airlock (agent ${agentId})`, version: deps.appVersion },
      {
        capabilities: { tools: { listChanged: false } },
        instructions: `Airlock runs these tools for agent ${agentId} in its own workspace (paths are relative to it), under the operator's policy. A risky call may wait for the operator's approval; a refused call says why.`
      }
    )
    this.server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      this.deps.limits.takeRate(agentId)
      const { tools, failures } = await listSessionTools({ agent: this.agent(), registry: deps.registry, holds: deps.holds, signal: extra.signal })
      return { tools, ...(failures.length > 0 ? { _meta: { 'airlock/unavailable-servers': failures } } : {}) }
    })
    this.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const agent = this.agent()
      this.deps.limits.takeRate(agentId)
      const release = this.deps.limits.claimSlot(agentId)
      try {
        const { name, arguments: args } = request.params
        await checkToolCall({ agent, registry: deps.registry, holds: deps.holds, name, signal: extra.signal })
        const callId = randomUUID()
        const dropped = this.disconnects.get(extra.requestId)?.signal
        const signal = dropped ? AbortSignal.any([extra.signal, dropped]) : extra.signal
        const progressToken = extra._meta?.progressToken
        const stopProgress =
          progressToken !== undefined && deps.approvalWaits
            ? reportApprovalProgress({ callId, progressToken, approvalWaits: deps.approvalWaits, send: extra.sendNotification })
            : undefined
        const call = this.execute({ tool: name, input: args ?? {}, callId, signal })
        try {
          return toolCallResult(name, await call)
        } finally {
          stopProgress?.()
        }
      } finally {
        release()
      }
    })
  }

  /** Starts serving: connects the SDK server to the transport. */
  async connect(): Promise<void> {
    await this.server.connect(this.transport)
  }

  /** Records activity (any request of the session). */
  touch(): void {
    this.lastActive = this.deps.now()
  }

  /** Whether the session has been without requests and calls for `ms`. */
  /** How long the session has been quiet (no call in flight), or undefined while a call runs. */
  quietForMs(): number | undefined {
    return this.calls.size === 0 ? this.deps.now() - this.lastActive : undefined
  }

  idleFor(ms: number): boolean {
    return this.calls.size === 0 && this.deps.now() - this.lastActive >= ms
  }

  /**
   * Ties the requests of one HTTP POST to its response: when the response closes before it
   * finished (the client went away), their calls are cancelled.
   */
  watchResponse(requestIds: RequestId[], response: ServerResponse): void {
    if (requestIds.length === 0) return
    const controllers = requestIds.map((id) => {
      const controller = new AbortController()
      this.disconnects.set(id, controller)
      return [id, controller] as const
    })
    response.once('close', () => {
      for (const [id, controller] of controllers) {
        if (!response.writableFinished) controller.abort(new Error('the client closed the connection'))
        if (this.disconnects.get(id) === controller) this.disconnects.delete(id)
      }
    })
  }

  /** Waits up to `ms` for the calls in flight to end (after they were cancelled). */
  async settle(ms: number): Promise<void> {
    if (this.calls.size === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.allSettled([...this.calls]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
    clearTimeout(timer)
  }

  /** Whether an Airlock session was started for it (the SDK accepted its initialize). */
  get started(): boolean {
    return this.sessionId !== ''
  }

  /** Closes the transport (cancelling calls in flight); its close handler ends the Airlock session. */
  async close(reason: string): Promise<void> {
    this.endReason ??= reason
    await this.transport.close()
  }

  /** The agent context of the session, or a `session not found` refusal when it ended (agent disabled, removed). */
  private agent(): ActionAgent {
    const agent = this.deps.sessions.agentOf(this.sessionId)
    if (!agent) throw new GatewayRefusal(gatewayErrorCodes.sessionNotFound, `Session ${this.sessionId} has ended; start a new session.`, { reason: 'session_ended' })
    return agent
  }

  private execute(input: { tool: string; input: unknown; callId: string; signal: AbortSignal }): Promise<ActionResult> {
    const call = this.deps.sessions.execute({ sessionId: this.sessionId, ...input }).catch((error: unknown) => {
      if (error instanceof SessionClosedError) throw new GatewayRefusal(gatewayErrorCodes.sessionNotFound, `Session ${this.sessionId} has ended; start a new session.`, { reason: 'session_ended' })
      throw error
    })
    this.calls.add(call)
    void call.catch(() => undefined).finally(() => {
      this.calls.delete(call)
      this.touch()
    })
    return call
  }
}
