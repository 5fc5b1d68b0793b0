import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isInitializeRequest, isJSONRPCRequest, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import { PortInUseError, type ActionHooks, type ActionRegistry, type LiveOutput, type SessionHolds } from '../core'
import type { AgentView } from '@shared/agents'
import type { AgentSessions } from '../console/agent-sessions'
import type { SettingsService } from '../console/settings-service'
import type { ApprovalWaits } from './call-progress'
import { CallLimits } from './call-limits'
import { gatewayErrorCodes, GatewayRefusal } from './gateway-errors'
import { bearerToken, checkHostAndOrigin, checkSingleHeaders, parseJson, readBody, sendRefusal, unauthorized, type HttpRefusal } from './gateway-http'
import { GatewaySession } from './gateway-session'
import { jsonRpcShapeRefusal, protocolHeaderRefusal } from './json-rpc-shape'
import { sessionEventLimits } from './session-events'

/** What the gateway needs of the host (a port: the host builds it, the gateway never sees the whole host). */
export type GatewayDeps = {
  appVersion: string
  settings: Pick<SettingsService, 'get'>
  /** The enabled agent a bearer token belongs to. */
  authenticate(token: unknown): AgentView | undefined
  /** Airlock sessions: started, resumed and ended with the MCP sessions. */
  sessions: AgentSessions
  registry: ActionRegistry
  /** The calls' runs: when each starts running, its last output line, its session's held resources. */
  runs: { hooks: Pick<ActionHooks, 'onRunning'>; liveOutput: Pick<LiveOutput, 'lastLine'>; holds: SessionHolds }
  /** What an MCP session's `initialize` said, kept so a client may resume it after a restart. */
  initializations: {
    save(sessionId: string, initialize: string): void
    resumable(sessionId: string, agentId: string, withinMs: number): { initialize: string } | undefined
  }
}

/** What the gateway is built from: the host's port, a TCP port, and the approval queue's hook when there is one. */
export type AgentGatewayOptions = {
  deps: GatewayDeps
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number
  /** Progress while a call waits for the operator (the approval queue); without it calls just wait. */
  approvalWaits?: ApprovalWaits
  logError?: (message: string, error: unknown) => void
  /** How often idle sessions are looked for (default: a quarter of the idle timeout, at most 30 s). */
  sweepMs?: number
}

/** A running gateway. */
export type AgentGateway = {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string
  port: number
  /** The open MCP sessions. */
  sessions(): { sessionId: string; agentId: string }[]
  /** Ends every session (releasing its resources) and stops listening. Safe to call twice. */
  close(): Promise<void>
}

/** How long a closing session waits for its cancelled calls before its resources are released anyway. */
const settleMs = 10_000

/**
 * The agent gateway (SPEC §8): MCP over Streamable HTTP at `http://127.0.0.1:<port>/mcp`. Every
 * request passes, in order: no repeated single-valued header, Host/Origin (DNS rebinding), the path
 * and method, the bearer token (an enabled agent; compared in constant time against every stored
 * digest), the body size limit (`100 Continue` only after all of these), JSON. A request without a
 * session must be `initialize`: it takes one unit of the agent's rate, is refused past
 * `gateway.max_sessions_per_agent` open sessions, and once the SDK accepted it opens an Airlock
 * session of that agent (transport `mcp-http`) whose id is the MCP session id (a refused
 * initialize records nothing); later requests must name a session of the same agent. Closing a session (DELETE, the transport closing, the idle timeout, shutdown) cancels
 * its calls and ends the Airlock session, which releases its session-scoped resources.
 */
export async function startAgentGateway(options: AgentGatewayOptions): Promise<AgentGateway> {
  const { deps } = options
  const logError = options.logError ?? ((message, error) => console.error(message, error))
  const open = new Map<string, GatewaySession>()
  const starting = new Set<GatewaySession>()
  const endings = new Set<Promise<void>>()
  const now = () => performance.now()
  const limits = new CallLimits({
    maxConcurrentCalls: () => deps.settings.get('gateway.max_concurrent_calls'),
    ratePerMinute: () => deps.settings.get('gateway.rate_per_minute')
  })
  let port = options.port
  let closing = false

  // When each call's executor started (its progress says `running` from then on).
  const runningSince = new Map<string, number>()
  const stopWatchingRuns = deps.runs.hooks.onRunning((event) => {
    runningSince.set(event.callId, now())
    return () => runningSince.delete(event.callId)
  })
  const sessionDeps = {
    phases: { runningSince: (callId: string) => runningSince.get(callId), lastLine: (callId: string) => deps.runs.liveOutput.lastLine(callId) },
    sessions: deps.sessions,
    registry: deps.registry,
    holds: deps.runs.holds,
    limits,
    approvalWaits: options.approvalWaits,
    appVersion: deps.appVersion,
    now
  }
  const handlers = {
    initialized: (session: GatewaySession) => {
      starting.delete(session)
      open.set(session.sessionId, session)
    },
    // The transport closed (DELETE, close(), shutdown): end the Airlock session once its calls settled.
    closed: (session: GatewaySession) => {
      starting.delete(session)
      // Never started (the SDK refused the initialize): there is no Airlock session to end.
      if (!session.started) return
      if (open.get(session.sessionId) === session) open.delete(session.sessionId)
      const ending = session
        .settle(settleMs)
        .then(() => deps.sessions.end(session.sessionId, session.endReason ?? 'closed'))
        .catch((error: unknown) => logError(`Airlock: ending MCP session ${session.sessionId} failed`, error))
      endings.add(ending)
      void ending.finally(() => endings.delete(ending))
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse, expectsContinue: boolean): Promise<void> {
    const refusal = checkSingleHeaders(request) ?? checkHostAndOrigin(request, port) ?? checkRoute(request)
    if (refusal) return sendRefusal(response, refusal)
    const agent = deps.authenticate(bearerToken(request))
    if (!agent) return sendRefusal(response, unauthorized())
    let parsed: unknown
    if (request.method === 'POST') {
      // `100 Continue` only once the request passed every check and its declared size is within the limit.
      const body = await readBody(request, { accepted: expectsContinue ? () => response.writeContinue() : undefined })
      if (!body.ok) return sendRefusal(response, body.refusal)
      const json = parseJson(body.body)
      if (!json.ok) return sendRefusal(response, json.refusal)
      parsed = json.value
      // For the SDK's request adapter: the body is already read.
      ;(request as IncomingMessage & { rawBody?: Buffer }).rawBody = body.body
    }
    const messages = parsed === undefined ? [] : Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]
    const sessionId = request.headers['mcp-session-id']
    const known = typeof sessionId === 'string' ? open.get(sessionId) : undefined
    const negotiated = known?.agentId === agent.id ? known.protocolVersion : undefined
    const shape = parsed === undefined ? undefined : jsonRpcShapeRefusal(parsed, negotiated)
    if (shape) return sendRefusal(response, shape)
    if (sessionId === undefined) {
      if (request.method !== 'POST' || !messages.some(isInitializeRequest)) {
        return sendRefusal(response, {
          status: 400,
          code: gatewayErrorCodes.invalidRequest,
          reason: 'no_session',
          message: 'Bad Request: no Mcp-Session-Id header; a session starts with an initialize request.'
        })
      }
      return initialize(agent.id, request, response, parsed)
    }
    const session = typeof sessionId === 'string' ? (open.get(sessionId) ?? (await resumeSession(agent.id, sessionId))) : undefined
    // Another agent's session is answered as unknown: a token never learns of other sessions.
    if (!session || session.agentId !== agent.id) return sendRefusal(response, sessionNotFound())
    if (!deps.sessions.agentOf(session.sessionId)) {
      void session.close('ended')
      return sendRefusal(response, sessionNotFound())
    }
    session.touch()
    const mismatch = protocolHeaderRefusal(request.headers['mcp-protocol-version'], session.protocolVersion)
    if (mismatch) return sendRefusal(response, mismatch)
    const resume = resumeRefusal(session, request)
    if (resume) return sendRefusal(response, resume)
    if (serveEndedStream(session, request, response)) return
    session.noteStreams(
      messages.filter(isJSONRPCRequest).map((message) => message.id),
      response
    )
    await session.transport.handleRequest(request, response, parsed)
  }

  async function initialize(agentId: string, request: IncomingMessage, response: ServerResponse, parsed: unknown): Promise<void> {
    if (closing)
      return sendRefusal(response, { status: 503, code: gatewayErrorCodes.refused, reason: 'shutting_down', message: 'Refused: the gateway is shutting down.' })
    try {
      limits.takeRate(agentId)
    } catch (error) {
      if (error instanceof GatewayRefusal) return sendRefusal(response, refusalOf(error, 429))
      throw error
    }
    const max = deps.settings.get('gateway.max_sessions_per_agent')
    const held = [...open.values(), ...starting].filter((s) => s.agentId === agentId)
    // At the cap, the agent's longest-quiet session (no call in flight) makes room: many clients
    // never DELETE their session and simply reconnect, and must not lock themselves out until the
    // idle timeout. Only when every session is busy is the new one refused.
    if (held.length >= max) {
      const quiet = held.filter((s) => open.get(s.sessionId) === s && s.quietForMs() !== undefined).sort((a, b) => b.quietForMs()! - a.quietForMs()!)[0]
      if (quiet) await quiet.close('replaced_by_new_session')
    }
    if ([...open.values(), ...starting].filter((s) => s.agentId === agentId).length >= max) {
      return sendRefusal(response, {
        status: 429,
        code: gatewayErrorCodes.tooManySessions,
        reason: 'too_many_sessions',
        message: `Too many sessions: agent ${agentId} already has ${held.length} open, each with a call in flight (setting gateway.max_sessions_per_agent is ${max}); wait for a call to end, or close a session (DELETE).`,
        data: { limit: max }
      })
    }
    // The Airlock session starts only when the SDK has accepted the initialize (see GatewaySession).
    const session = new GatewaySession(agentId, sessionDeps, handlers, () => deps.sessions.start(agentId, 'mcp-http').sessionId)
    session.protocolVersion = negotiatedVersion(parsed)
    starting.add(session)
    try {
      await session.connect()
      await session.transport.handleRequest(request, response, parsed)
      // Kept so the session can be resumed after a restart (see `resumeSession`).
      const opened = (Array.isArray(parsed) ? parsed : [parsed]).find(isInitializeRequest)
      if (opened && open.get(session.sessionId) === session) deps.initializations.save(session.sessionId, JSON.stringify(opened))
    } finally {
      // The SDK refused the initialize (bad headers, protocol), or the agent went: nothing may stay open for it.
      if (open.get(session.sessionId) !== session) await session.close('initialize_refused')
    }
  }

  /**
   * A session id this process does not know, of a session a restart of Airlock ended (shutdown or
   * crash) within the idle timeout, asked for by its own agent: opened again under the same id,
   * with its working directory and taint (durable sessions). Anything else stays unknown (404).
   */
  const resuming = new Map<string, Promise<GatewaySession | undefined>>()
  async function resumeSession(agentId: string, sessionId: string): Promise<GatewaySession | undefined> {
    if (closing) return undefined
    const pending = resuming.get(sessionId)
    if (pending) return pending
    const stored = deps.initializations.resumable(sessionId, agentId, deps.settings.get('gateway.idle_timeout_seconds') * 1000)
    if (!stored) return undefined
    const attempt = (async () => {
      const initialize = JSON.parse(stored.initialize) as unknown
      const session = new GatewaySession(agentId, sessionDeps, handlers, () => deps.sessions.resume(agentId, sessionId).sessionId)
      session.protocolVersion = negotiatedVersion(initialize)
      starting.add(session)
      try {
        await session.connect()
        if ((await session.replayInitialize(initialize)) && open.get(sessionId) === session) return session
      } catch (error) {
        logError(`Airlock: resuming MCP session ${sessionId} failed`, error)
      }
      await session.close('resume_refused')
      return undefined
    })().finally(() => resuming.delete(sessionId))
    resuming.set(sessionId, attempt)
    return attempt
  }

  const serve = (request: IncomingMessage, response: ServerResponse, expectsContinue: boolean) => {
    void handle(request, response, expectsContinue).catch((error: unknown) => {
      logError('Airlock: the agent gateway failed on a request', error)
      sendRefusal(response, { status: 500, code: gatewayErrorCodes.internalError, reason: 'internal_error', message: 'Internal error of the gateway.' })
    })
  }
  const server = createServer((request, response) => serve(request, response, false))
  // `Expect: 100-continue`: node:http would answer `100 Continue` before any check; this handler
  // sends it only when the body is going to be read (an oversize or unauthorized one hears its refusal).
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => serve(request, response, true))
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(
              `Port ${options.port} on 127.0.0.1 is in use, so the agent gateway cannot start; choose another with --gateway-port (or the gateway.port setting).`
            )
          : error
      )
    )
    server.listen(options.port, '127.0.0.1', () => resolve())
  })
  port = (server.address() as AddressInfo).port

  // Idle sessions end (and release their resources); so do sessions whose Airlock session ended
  // elsewhere. The interval follows the setting as it is now (a quarter of the timeout, at most 30 s).
  let sweeper: NodeJS.Timeout | undefined
  const sweep = () => {
    const idleMs = deps.settings.get('gateway.idle_timeout_seconds') * 1000
    const releaseMs = deps.settings.get('gateway.idle_release_seconds') * 1000
    for (const session of open.values()) {
      if (!deps.sessions.agentOf(session.sessionId)) void session.close('ended')
      else if (session.idleFor(idleMs)) void session.close('idle_timeout')
      else if (!session.resourcesReleased && session.idleFor(releaseMs)) {
        // Resources are not sessions: the session stays (its directory, taint), its warm sandbox goes.
        session.resourcesReleased = true
        void deps.runs.holds
          .end(session.sessionId)
          .catch((error: unknown) => logError(`Airlock: releasing the resources of idle MCP session ${session.sessionId} failed`, error))
      }
    }
    sweeper = setTimeout(sweep, options.sweepMs ?? Math.min(30_000, Math.min(idleMs, releaseMs) / 4))
    sweeper.unref()
  }
  sweep()

  let closed: Promise<void> | undefined
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    sessions: () => [...open.values()].map((s) => ({ sessionId: s.sessionId, agentId: s.agentId })),
    close: () =>
      (closed ??= (async () => {
        closing = true
        clearTimeout(sweeper)
        stopWatchingRuns()
        await Promise.allSettled([...open.values(), ...starting].map((session) => session.close('shutdown')))
        await Promise.allSettled([...endings])
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      })())
  }
}

/** Only `/mcp` exists, with the methods Streamable HTTP uses (no CORS preflight: browsers are not clients). */
function checkRoute(request: IncomingMessage): HttpRefusal | undefined {
  const path = (request.url ?? '/').split('?')[0]
  if (path !== '/mcp') return { status: 404, code: gatewayErrorCodes.refused, reason: 'not_found', message: 'Not found: the MCP endpoint is /mcp.' }
  if (!['POST', 'GET', 'DELETE'].includes(request.method ?? '')) {
    return {
      status: 405,
      code: gatewayErrorCodes.refused,
      reason: 'method_not_allowed',
      message: `Method ${request.method} is not allowed on /mcp.`,
      headers: { allow: 'POST, GET, DELETE' }
    }
  }
  return undefined
}

/** A limit's refusal (rate) answered at the HTTP layer, before any session exists. */
function refusalOf(error: GatewayRefusal, status: number): HttpRefusal {
  const { reason, ...data } = error.data
  const retry = typeof data.retryAfterMs === 'number' ? { 'retry-after': String(Math.ceil(data.retryAfterMs / 1000)) } : undefined
  return { status, code: error.code, reason, message: error.message, data, ...(retry ? { headers: retry } : {}) }
}

/**
 * A resume (`Last-Event-ID`) the session cannot serve, refused with why: an id that is not one of
 * this session's events, or one dropped from its bounded store (the call's result is in history).
 */
function resumeRefusal(session: GatewaySession, request: IncomingMessage): HttpRefusal | undefined {
  const lastEventId = request.headers['last-event-id']
  if (lastEventId === undefined) return undefined
  const lookup = typeof lastEventId === 'string' ? session.events.lookup(lastEventId) : { found: false as const, reason: 'unknown' as const }
  if (lookup.found) return undefined
  const message = session.resumed
    ? `Cannot resume after event ${String(lastEventId)}: Airlock restarted since then; a call that was running then ended interrupted (its row in history says so), and this session goes on.`
    : lookup.reason === 'dropped'
      ? `Cannot resume after event ${String(lastEventId)}: the session no longer keeps it (it keeps the last ${sessionEventLimits.events} events, ${sessionEventLimits.bytes / 1024 / 1024} MiB); what the call returned is in Airlock's history (airlock history).`
      : `Cannot resume after event ${String(lastEventId)}: no event of this session has that id.`
  return {
    status: 400,
    code: gatewayErrorCodes.invalidRequest,
    reason: session.resumed ? 'interrupted_by_restart' : lookup.reason === 'dropped' ? 'events_dropped' : 'unknown_event_id',
    message
  }
}

/**
 * A resume of a stream whose calls have all been answered, served here as a finite replay: what
 * came after `Last-Event-ID`, then the end of the stream — or `204 No Content` when nothing
 * did, which tells the SDK client there is nothing more to wait for (it would otherwise resume
 * again and again after an error answer). The SDK's own replay keeps such a stream open for
 * good (see `SessionEventStore`). Returns whether it answered.
 */
function serveEndedStream(session: GatewaySession, request: IncomingMessage, response: ServerResponse): boolean {
  const lastEventId = request.headers['last-event-id']
  if (request.method !== 'GET' || typeof lastEventId !== 'string') return false
  const missed = session.events.endedStreamAfter(lastEventId)
  if (missed === undefined) return false
  if (missed.length === 0) {
    response.writeHead(204, { 'mcp-session-id': session.sessionId }).end()
    return true
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'mcp-session-id': session.sessionId })
  response.end(missed.map((event) => `event: message\nid: ${event.id}\ndata: ${JSON.stringify(event.message)}\n\n`).join(''))
  return true
}

/** The version an initialize negotiates: the client's when the SDK supports it, else the SDK's latest (what the SDK answers). */
function negotiatedVersion(parsed: unknown): string {
  const initialize = (Array.isArray(parsed) ? parsed : [parsed]).find(isInitializeRequest)
  const requested = initialize?.params.protocolVersion
  return requested !== undefined && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION
}

function sessionNotFound(): HttpRefusal {
  return {
    status: 404,
    code: gatewayErrorCodes.sessionNotFound,
    reason: 'session_not_found',
    message: 'Session not found: it ended or never existed; start a new session with initialize.'
  }
}
