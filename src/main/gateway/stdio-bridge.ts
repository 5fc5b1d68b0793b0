import { AirlockError } from '@shared/errors'
import type { Readable, Writable } from 'node:stream'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest
} from '@modelcontextprotocol/sdk/types.js'
import { gatewayErrorCodes } from './gateway-errors'

/** Where the bridge connects and what it speaks on. */
export type StdioBridgeOptions = {
  /**
   * The URL of the gateway the token may be sent to now; throws (with a message for people) when
   * there is none. Asked before every HTTP request the bridge makes, so a gateway that ended is
   * never replaced, unnoticed, by whoever takes its port.
   */
  locate: () => string
  token: string
  stdin: Readable
  stdout: Writable
  /** One line for people (stderr). */
  report: (line: string) => void
  /** Ends the bridge (a signal): the gateway session is closed first. */
  signal?: AbortSignal
}

/**
 * `airlock mcp-stdio` (SPEC §8): relays JSON-RPC messages between a stdio MCP client and the
 * gateway's Streamable HTTP endpoint, adding the agent's bearer token. A message the gateway
 * refuses is answered to the client as a JSON-RPC error with the gateway's own words. When the
 * gateway has ended the session (idle timeout, restart), the bridge opens a new one by replaying
 * the client's `initialize`, so a long-lived stdio client keeps working; so it does when the gateway
 * was restarted on another port. Every HTTP request (POST, the SSE stream and its reconnects,
 * DELETE) first asks `locate`: a request to an address that is no longer the trusted gateway's is
 * never sent, and the client's request fails with the reason. Resolves when stdin ends (or the
 * signal fires), after ending the gateway session.
 */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const stdio = new StdioServerTransport(options.stdin, options.stdout)
  let initialize: JSONRPCRequest | undefined
  let protocolVersion: string | undefined
  let reconnecting: Promise<StreamableHTTPClientTransport> | undefined
  let replays = 0
  /** A replayed initialize whose answer is the bridge's own, not the client's. */
  let replay: { id: string; answered(message: JSONRPCMessage): void } | undefined
  /** Set once the bridge is ending: the transport's complaints about the streams it closes are not news. */
  let closing = false

  const connect = async (sessionId?: string): Promise<StreamableHTTPClientTransport> => {
    const url = options.locate()
    // The token leaves only after the address is checked again, request by request.
    const guarded: typeof fetch = async (input, init) => {
      const now = options.locate()
      if (now !== url) throw new GatewayMoved(now)
      return fetch(input, init)
    }
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${options.token}` } },
      fetch: guarded,
      ...(sessionId ? { sessionId } : {}),
      // A dropped stream is not retried blindly: the next request reconnects through `locate`.
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 }
    })
    transport.onmessage = (message) => {
      if (replay && (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id === replay.id) return replay.answered(message)
      if (isJSONRPCResultResponse(message) && initialize && message.id === initialize.id) {
        protocolVersion = (message.result as { protocolVersion?: string }).protocolVersion
        if (protocolVersion) transport.setProtocolVersion(protocolVersion)
      }
      void stdio.send(message)
    }
    // A stream the gateway ends is not retried (`maxRetries: 0`, by design: the next request reconnects through `locate`); the SDK reports that as an error, which is not one here.
    transport.onerror = (error) => {
      if (!closing && !/Maximum reconnection attempts/.test(describe(error))) options.report(`airlock mcp-stdio: ${describe(error)}`)
    }
    await transport.start()
    return transport
  }
  let http = await connect()

  /** Sends a request of the bridge's own on `transport` and waits for its answer (not relayed to the client). */
  const ask = async (transport: StreamableHTTPClientTransport, message: JSONRPCRequest): Promise<JSONRPCMessage> => {
    const answered = new Promise<JSONRPCMessage>((resolve) => (replay = { id: String(message.id), answered: resolve }))
    try {
      await transport.send(message)
      return await answered
    } finally {
      replay = undefined
    }
  }

  /**
   * The gateway no longer knows the session (it restarted, maybe on another port, or ended it):
   * first the same session is asked for again at the gateway's address now (a restarted gateway
   * resumes it, working directory and all); only when that fails is a new one opened with the
   * client's initialize. Either way it is swapped in.
   */
  const reopen = (stale: StreamableHTTPClientTransport): Promise<StreamableHTTPClientTransport> => {
    if (http !== stale) return Promise.resolve(http)
    reconnecting ??= (async () => {
      replays += 1
      if (stale.sessionId) {
        const same = await connect(stale.sessionId)
        if (protocolVersion) same.setProtocolVersion(protocolVersion)
        const pong = await ask(same, { jsonrpc: '2.0', id: `airlock-mcp-stdio-resume-${replays}`, method: 'ping' }).catch(() => undefined)
        if (pong && isJSONRPCResultResponse(pong)) {
          void stale.close().catch(() => undefined)
          options.report('airlock mcp-stdio: the gateway restarted; the session was resumed')
          http = same
          return same
        }
        void same.close().catch(() => undefined)
      }
      const next = await connect()
      const answer = await ask(next, { ...initialize!, id: `airlock-mcp-stdio-reinitialize-${replays}` })
      if (isJSONRPCErrorResponse(answer)) throw new Error(answer.error.message)
      if (protocolVersion) next.setProtocolVersion(protocolVersion)
      await next.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      void stale.close().catch(() => undefined)
      options.report('airlock mcp-stdio: the gateway had ended the session; a new one was opened (the working directory starts at the workspace root)')
      http = next
      return next
    })().finally(() => (reconnecting = undefined))
    return reconnecting
  }

  const forward = async (message: JSONRPCMessage): Promise<void> => {
    if (isJSONRPCRequest(message) && isInitializeRequest(message)) initialize = message
    const used = http
    try {
      await used.send(message)
    } catch (error) {
      try {
        const sessionGone = (error instanceof StreamableHTTPError && error.code === 404) || error instanceof GatewayMoved
        if (!(sessionGone && initialize && message !== initialize)) throw error
        await (await reopen(used)).send(message)
      } catch (final) {
        if (isJSONRPCRequest(message)) {
          await stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: gatewayErrorCodes.refused, message: `Airlock gateway: ${describe(final)}` } })
        } else options.report(`airlock mcp-stdio: ${describe(final)}`)
      }
    }
  }

  // Messages are relayed in the order the client sent them (a notification must not overtake its request).
  let queue = Promise.resolve()
  stdio.onmessage = (message) => {
    queue = queue.then(() => forward(message))
  }
  // A line that is not JSON is answered -32700, one that is not JSON-RPC -32600 (JSON-RPC 2.0: id null, nothing to tie it to).
  stdio.onerror = (error) => {
    const notJson = error instanceof SyntaxError
    options.report(`airlock mcp-stdio: a message from the client was not ${notJson ? 'JSON' : 'JSON-RPC'} (${describe(error)})`)
    void stdio
      .send({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: notJson ? gatewayErrorCodes.parseError : gatewayErrorCodes.invalidRequest,
          message: notJson ? 'Parse error: the line is not JSON.' : 'Invalid Request: the line is not a JSON-RPC message.'
        }
      } as unknown as JSONRPCMessage)
      .catch(() => undefined)
  }
  await stdio.start()

  await new Promise<void>((resolve) => {
    options.stdin.once('end', resolve).once('close', resolve)
    options.signal?.addEventListener('abort', () => resolve(), { once: true })
  })
  await queue.catch(() => undefined)
  closing = true
  await http.terminateSession().catch(() => undefined)
  await http.close().catch(() => undefined)
  await stdio.close().catch(() => undefined)
}

/** The trusted gateway now listens elsewhere (it was restarted): the session must be opened there anew. */
class GatewayMoved extends AirlockError<'gateway.moved'> {
  constructor(readonly url: string) {
    super('gateway.moved', `the agent gateway now listens at ${url}`)
  }
}

/** What went wrong, in the gateway's words when it answered with a JSON-RPC error. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const json = message.indexOf('{"jsonrpc"')
  if (json >= 0) {
    try {
      const parsed = JSON.parse(message.slice(json)) as { error?: { message?: string } }
      if (parsed.error?.message) return parsed.error.message
    } catch {
      // Not the gateway's JSON: the transport's own message is the best there is.
    }
  }
  return message
}

/**
 * When the bridge cannot start (no console on this home, a wrong token, a disabled agent): waits
 * for the client's `initialize` (at most `waitMs`, not at all on a terminal) and answers it with
 * a JSON-RPC error that names the reason, so the client shows why instead of "the server
 * exited". Resolves once answered, or when stdin ends or the wait is over.
 */
export async function refuseOverStdio(input: { stdin: Readable & { isTTY?: boolean }; stdout: Writable; reason: string; waitMs?: number }): Promise<void> {
  if (input.stdin.isTTY) return
  const stdio = new StdioServerTransport(input.stdin, input.stdout)
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, input.waitMs ?? 10_000)
    timer.unref()
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    stdio.onmessage = (message) => {
      if (!isJSONRPCRequest(message)) return
      void stdio
        .send({ jsonrpc: '2.0', id: message.id, error: { code: gatewayErrorCodes.refused, message: `Airlock: ${input.reason}` } })
        .catch(() => undefined)
        .finally(() => isInitializeRequest(message) && done())
    }
    stdio.onerror = () => undefined
    input.stdin.once('end', done).once('close', done)
    void stdio.start()
  })
  await stdio.close().catch(() => undefined)
}
