import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** Name of the cookie that carries the console token after the first, token-bearing URL. */
export const tokenCookie = 'airlock_token'

/** A fresh random session token for the web console (printed once, in the URL). */
export function createConsoleToken(): string {
  return randomBytes(24).toString('base64url')
}

/** Why a request was refused, with the HTTP status that says so. */
export type GuardRefusal = { status: 401 | 403 | 421; reason: string }

/**
 * The web console's request guard: Host must be this loopback port (DNS-rebinding protection),
 * a present Origin must be this console, and the token must come in the query or the cookie.
 */
export function createRequestGuard(options: { token: string; port: () => number }) {
  const expected = digest(options.token)
  const allowedHosts = () => [`127.0.0.1:${options.port()}`, `localhost:${options.port()}`]

  return {
    /** Returns undefined when the request may proceed, else why not. */
    check(request: IncomingMessage): GuardRefusal | undefined {
      const host = request.headers.host ?? ''
      if (!allowedHosts().includes(host)) return { status: 421, reason: 'unexpected Host header' }
      const origin = request.headers.origin
      if (origin !== undefined && !allowedHosts().some((h) => origin === `http://${h}`)) {
        return { status: 403, reason: 'foreign Origin' }
      }
      const presented = tokenOf(request)
      if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
        return { status: 401, reason: 'missing or wrong token' }
      }
      return undefined
    },
    /** True when the token came in the URL (so the cookie should be set). */
    tokenInQuery(request: IncomingMessage): boolean {
      return new URL(request.url ?? '/', 'http://x').searchParams.has('token')
    }
  }
}

function tokenOf(request: IncomingMessage): string | undefined {
  const fromQuery = new URL(request.url ?? '/', 'http://x').searchParams.get('token')
  if (fromQuery) return fromQuery
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=')
    if (name === tokenCookie) return decodeURIComponent(rest.join('='))
  }
  return undefined
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
