import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { SessionHolder } from '../actions/mcp_tools'
import { SessionClosedError, type AgentSessions } from '../console/agent-sessions'
import { canonicalJson, type ActionAgent, type ActionRegistry, type ActionResult } from '../core'
import { reportCallProgress, type ApprovalWaits, type CallPhases } from './call-progress'
import type { CallLimits } from './call-limits'
import { gatewayErrorCodes, GatewayRefusal } from './gateway-errors'
import { checkToolCall, listSessionTools } from './tool-catalog'
import { SessionEventStore } from './session-events'
import { toolCallResult } from './tool-result'

/** What one MCP session needs from the host and the gateway. */
export type GatewaySessionDeps = {
  sessions: Pick<AgentSessions, 'execute' | 'agentOf'>
  registry: Pick<ActionRegistry, 'resolve'>
  /** Where the session's upstream MCP connections are held (the dispatcher's session holds). */
  holds: SessionHolder
  limits: CallLimits
  approvalWaits?: ApprovalWaits
  /** Whether a call's executor runs yet (the dispatcher's WHILE_RUNNING hook), for its progress. */
  phases?: CallPhases
  appVersion: string
  now: () => number
}

/** How long a client that lost its stream is told to wait before it resumes (SSE `retry:`). */
const resumeRetryMs = 2000

/**
 * One MCP session of one agent: an SDK `Server` on its own `StreamableHTTPServerTransport`, whose
 * MCP session id is the Airlock session id (so history, the ledger and the client name the same
 * session). It lists the agent's tools and runs `tools/call` through `AgentSessions.execute` with
 * the request's abort signal: the client's `notifications/cancelled`, or the session closing.
 * A dropped connection is not a cancel (Streamable HTTP): the call runs to its end, its events
 * (progress, then the result) are kept in the session's `SessionEventStore`, and the client
 * resumes with `Last-Event-ID`. A client that sends the same call again (same tool, same
 * arguments) while it runs joins it instead of starting a second one.
 */
export class GatewaySession {
  readonly transport: StreamableHTTPServerTransport
  readonly server: Server
  /** Calls in flight (an idle session has none). */
  private readonly calls = new Set<Promise<ActionResult>>()
  /** Calls in flight by tool and arguments, with the requests waiting on each: a call re-sent after its stream was lost joins the one running. */
  private readonly running = new Map<string, { call: Promise<ActionResult>; callId: string; requests: Set<RequestId> }>()
  /** Requests whose HTTP response closed before their result was written (the client lost the stream). */
  private readonly lostStreams = new Set<RequestId>()
  /** What its streams sent, for a client that resumes (`Last-Event-ID`). */
  readonly events = new SessionEventStore()
  private lastActive: number
  /** The protocol version its initialize negotiated (later requests' `MCP-Protocol-Version` must name it). */
  protocolVersion: string | undefined
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
      eventStore: this.events,
      retryInterval: resumeRetryMs,
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
        const key = joinKey(name, args)
        let inFlight = key === undefined ? undefined : this.running.get(key)
        // Joined only when a request for it lost its stream: two identical calls sent on purpose both run.
        if (!inFlight || ![...inFlight.requests].some((id) => this.lostStreams.has(id))) {
          const callId = randomUUID()
          const started = { call: this.execute({ tool: name, input: args ?? {}, callId, signal: extra.signal }), callId, requests: new Set<RequestId>() }
          if (key !== undefined) this.running.set(key, started)
          void started.call
            .catch(() => undefined)
            .finally(() => {
              if (key !== undefined && this.running.get(key) === started) this.running.delete(key)
              for (const id of started.requests) this.lostStreams.delete(id)
            })
          inFlight = started
        }
        inFlight.requests.add(extra.requestId)
        const { call, callId } = inFlight
        const progressToken = extra._meta?.progressToken
        const stopProgress =
          progressToken !== undefined
            ? reportCallProgress({ callId, progressToken, approvalWaits: deps.approvalWaits, phases: deps.phases, send: extra.sendNotification })
            : undefined
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

  /** Set when this session was resumed after a restart of Airlock (its events before it are gone). */
  resumed = false

  /**
   * Resumes a session a restart ended: feeds the transport the `initialize` its client opened it
   * with (and `notifications/initialized`), as if the client had sent them, so the SDK server is
   * initialized for that client again under the same session id (`start` returns it). Decision:
   * the SDK has no public way to adopt a session id, so this speaks to the transport's inner
   * web-standard handler directly; `gateway-long-work.test.ts` fails if an SDK upgrade moves it.
   * Resolves false when the transport refused.
   */
  async replayInitialize(initialize: unknown): Promise<boolean> {
    const inner = (this.transport as unknown as { _webStandardTransport?: WebHandler })._webStandardTransport
    if (!inner) return false
    const post = async (body: unknown, headers: Record<string, string>) => {
      const response = await inner.handleRequest(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify(body)
        }),
        { parsedBody: body }
      )
      await response.text()
      return response.status
    }
    if ((await post(initialize, {})) !== 200 || this.sessionId === '') return false
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' }
    this.resumed = true
    return (
      (await post(initialized, { 'mcp-session-id': this.sessionId, ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}) })) === 202
    )
  }

  /** Starts serving: connects the SDK server to the transport. */
  async connect(): Promise<void> {
    await this.server.connect(this.transport)
  }

  /** Whether its warm resources were given back while it idled (the next call makes them again). */
  resourcesReleased = false

  /** Records activity (any request of the session). */
  touch(): void {
    this.lastActive = this.deps.now()
    this.resourcesReleased = false
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
   * Notes when the HTTP response carrying these requests closes before it finished (the client
   * lost its stream): their calls keep running, and the same call sent again joins them.
   */
  noteStreams(requestIds: RequestId[], response: ServerResponse): void {
    if (requestIds.length === 0) return
    this.events.expect(requestIds)
    response.once('close', () => {
      if (response.writableFinished) return
      for (const id of requestIds) if ([...this.running.values()].some((entry) => entry.requests.has(id))) this.lostStreams.add(id)
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
    if (!agent)
      throw new GatewayRefusal(gatewayErrorCodes.sessionNotFound, `Session ${this.sessionId} has ended; start a new session.`, { reason: 'session_ended' })
    return agent
  }

  private execute(input: { tool: string; input: unknown; callId: string; signal: AbortSignal }): Promise<ActionResult> {
    const call = this.deps.sessions.execute({ sessionId: this.sessionId, ...input }).catch((error: unknown) => {
      if (error instanceof SessionClosedError)
        throw new GatewayRefusal(gatewayErrorCodes.sessionNotFound, `Session ${this.sessionId} has ended; start a new session.`, { reason: 'session_ended' })
      throw error
    })
    this.calls.add(call)
    void call
      .catch(() => undefined)
      .finally(() => {
        this.calls.delete(call)
        this.touch()
      })
    return call
  }
}

/** The SDK transport's inner web-standard request handler (see `replayInitialize`). */
type WebHandler = { handleRequest(request: Request, options: { parsedBody: unknown }): Promise<Response> }

/** What makes two calls the same (tool and arguments), or undefined for arguments too deep to compare (they fail validation anyway). */
function joinKey(name: string, args: unknown): string | undefined {
  try {
    return canonicalJson({ name, args: args ?? {} })
  } catch {
    return undefined
  }
}
