import type { IncomingMessage, ServerResponse } from 'node:http'
import { gatewayErrorCodes, quoteForMessage } from './gateway-errors'

/** The largest request body the gateway reads: room for `write_file`'s 16 MiB content as JSON, and no more. */
export const maxRequestBytes = 20 * 1024 * 1024

/** Why a request was refused before MCP saw it: HTTP status, JSON-RPC code, a message for people, a reason for machines. */
export type HttpRefusal = { status: number; code: number; message: string; reason: string; headers?: Record<string, string>; data?: Record<string, unknown> }

/** Headers a request may carry once: node:http keeps the first of some and joins others, so a second copy would be read differently by different parts. */
const singleHeaders = new Set(['host', 'authorization', 'origin', 'content-type', 'content-length', 'mcp-session-id', 'mcp-protocol-version'])

/** Refuses (400) a request that repeats a header it may carry once (read from `rawHeaders`, which keeps every copy). */
export function checkSingleHeaders(request: IncomingMessage): HttpRefusal | undefined {
  const seen = new Set<string>()
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!.toLowerCase()
    if (!singleHeaders.has(name)) continue
    if (seen.has(name)) {
      return {
        status: 400,
        code: gatewayErrorCodes.refused,
        reason: 'repeated_header',
        message: `Refused: the ${name} header may be sent once; this request repeats it.`,
        headers: { connection: 'close' }
      }
    }
    seen.add(name)
  }
  return undefined
}

/**
 * DNS-rebinding protection (SPEC §8): the Host must be this loopback port by address or as
 * `localhost`, and an Origin, when sent, must be the gateway itself. A web page elsewhere (its
 * Origin is its own) can never make a browser talk to the gateway, and the gateway sends no CORS
 * headers at all.
 */
export function checkHostAndOrigin(request: IncomingMessage, port: number): HttpRefusal | undefined {
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`]
  const host = request.headers.host ?? ''
  if (!allowed.includes(host)) {
    return {
      status: 421,
      code: gatewayErrorCodes.refused,
      reason: 'foreign_host',
      message: `Refused: the Host header ${quoteForMessage(host)} is not this gateway (use http://127.0.0.1:${port}/mcp).`
    }
  }
  const origin = request.headers.origin
  if (origin !== undefined && !allowed.some((h) => origin === `http://${h}`)) {
    return {
      status: 403,
      code: gatewayErrorCodes.refused,
      reason: 'foreign_origin',
      message: `Refused: requests from the web origin ${quoteForMessage(origin)} are not allowed.`
    }
  }
  return undefined
}

/** The bearer token of a request's `Authorization` header, or undefined. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
  return match?.[1]
}

/** The refusal of a request without a token of an enabled agent (no hint which part was wrong). */
export function unauthorized(): HttpRefusal {
  return {
    status: 401,
    code: gatewayErrorCodes.refused,
    reason: 'unauthorized',
    message: 'Refused: send the agent token as "Authorization: Bearer <token>" (a missing, wrong, rotated token or a disabled agent is refused).',
    headers: { 'www-authenticate': 'Bearer realm="airlock"' }
  }
}

/**
 * Reads a request body up to `limit` bytes. A declared `Content-Length` over the limit is refused
 * before anything is read; a body that grows past it while streaming stops being read at once.
 * `accepted` runs once the body is going to be read (for `Expect: 100-continue`: only then may
 * the client hear `100 Continue`).
 */
export async function readBody(
  request: IncomingMessage,
  options: { limit?: number; accepted?: () => void } = {}
): Promise<{ ok: true; body: Buffer } | { ok: false; refusal: HttpRefusal }> {
  const limit = options.limit ?? maxRequestBytes
  const tooLarge = (): HttpRefusal => ({
    status: 413,
    code: gatewayErrorCodes.refused,
    reason: 'body_too_large',
    message: `Refused: the request body is larger than ${limit} bytes.`,
    headers: { connection: 'close' }
  })
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) return { ok: false, refusal: tooLarge() }
  options.accepted?.()
  // Events rather than async iteration: leaving an async iterator early destroys the socket,
  // and the 413 would never reach the client.
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = (result: { ok: true; body: Buffer } | { ok: false; refusal: HttpRefusal }) => {
      request.off('data', onData).off('end', onEnd).off('error', onError)
      resolve(result)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      request.pause()
      finish({ ok: false, refusal: tooLarge() })
    }
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks) })
    const onError = () =>
      finish({
        ok: false,
        refusal: { status: 400, code: gatewayErrorCodes.refused, reason: 'body_unreadable', message: 'Refused: the request body could not be read.' }
      })
    request.on('data', onData).on('end', onEnd).on('error', onError)
  })
}

/** Parses a JSON body; a body that is not JSON is the JSON-RPC parse error. */
export function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false; refusal: HttpRefusal } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown }
  } catch {
    return {
      ok: false,
      refusal: { status: 400, code: gatewayErrorCodes.parseError, reason: 'parse_error', message: 'Parse error: the request body is not JSON.' }
    }
  }
}

/** Answers a refusal as a JSON-RPC error (id null: it answers no particular request). */
export function sendRefusal(response: ServerResponse, refusal: HttpRefusal): void {
  if (response.headersSent) {
    response.end()
    return
  }
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: refusal.code, message: refusal.message, data: { ...refusal.data, reason: refusal.reason } }
  })
  response.writeHead(refusal.status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...refusal.headers })
  response.end(body)
}
