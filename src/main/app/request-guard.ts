import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/**
 * Name of the cookie a browser holds once it has shown a credential: a console session (a
 * random nonce and its HMAC under the console token), never the token itself. Rotating the
 * token ends every session made with the old one.
 */
export const sessionCookie = 'airlock_session'

/** How long a launch code (the URL the console opens a browser on) can be exchanged. */
export const launchCodeLifetimeMs = 20_000

/** A fresh random session token for the web console (printed once, in the URL). */
export function createConsoleToken(): string {
  return randomBytes(24).toString('base64url')
}

/** Why a request was refused, with the HTTP status that says so. */
export type GuardRefusal = { status: 401 | 403 | 421; reason: string }

/** How a request proved it may use the console. */
export type Credential = 'token' | 'launch' | 'session'

/**
 * The web console's request guard: Host must be this loopback port (DNS-rebinding protection),
 * a present Origin must be this console, and the request must carry one of:
 * - the console token (`?token=`): the operator's credential, printed only on `serve`'s own
 *   stdout. It never goes on a command line or into an environment another user can read;
 * - a launch code (`?launch=`): what the console hands a browser it opens itself (`xdg-open`
 *   keeps its URL on a command line every local user can read in `/proc`), good once and for
 *   {@link launchCodeLifetimeMs};
 * - the session cookie, made when either of those is exchanged (see {@link sessionCookie}).
 */
export function createRequestGuard(options: { token: string; port: () => number; now?: () => number }) {
  let token = options.token
  let expected = digest(token)
  const now = options.now ?? Date.now
  const allowedHosts = () => [`127.0.0.1:${options.port()}`, `localhost:${options.port()}`]
  /** Live launch codes by their digest, with when each expires. */
  const launchCodes = new Map<string, number>()

  const sessionMac = (nonce: string) => createHmac('sha256', token).update(`airlock-console-session\0${nonce}`).digest('base64url')

  const credentialOf = (request: IncomingMessage): Credential | undefined => {
    const query = new URL(request.url ?? '/', 'http://x').searchParams
    const given = query.get('token')
    if (given && timingSafeEqual(digest(given), expected)) return 'token'
    const launch = query.get('launch')
    if (launch && takeLaunchCode(launch)) return 'launch'
    // A stale `?token=` (a bookmark, a tab from before a rotation) does not outvote a valid session.
    const session = cookieOf(request, sessionCookie)
    return session !== undefined && validSession(session) ? 'session' : undefined
  }

  const takeLaunchCode = (code: string): boolean => {
    const key = digest(code).toString('hex')
    const expires = launchCodes.get(key)
    launchCodes.delete(key)
    return expires !== undefined && expires > now()
  }

  const validSession = (value: string): boolean => {
    const [nonce, mac, ...rest] = value.split('.')
    if (!nonce || !mac || rest.length > 0) return false
    const want = Buffer.from(sessionMac(nonce))
    const got = Buffer.from(mac)
    return got.length === want.length && timingSafeEqual(got, want)
  }

  return {
    /**
     * Returns how the request proved itself, or why it is refused. A launch code is spent by
     * this check: call it once per request.
     */
    check(request: IncomingMessage): { refusal: GuardRefusal } | { credential: Credential } {
      const host = request.headers.host ?? ''
      if (!allowedHosts().includes(host)) return { refusal: { status: 421, reason: 'unexpected Host header' } }
      const origin = request.headers.origin
      if (origin !== undefined && !allowedHosts().some((h) => origin === `http://${h}`)) {
        return { refusal: { status: 403, reason: 'foreign Origin' } }
      }
      const credential = credentialOf(request)
      return credential ? { credential } : { refusal: { status: 401, reason: 'missing, wrong or spent credential' } }
    },
    /** Takes a new console token: the old one and every session made with it stop working at once. */
    setToken(next: string): void {
      token = next
      expected = digest(next)
      launchCodes.clear()
    },
    /** A one-time code for a browser the console opens itself (expired codes are forgotten here). */
    issueLaunchCode(): string {
      for (const [key, expires] of launchCodes) if (expires <= now()) launchCodes.delete(key)
      const code = randomBytes(24).toString('base64url')
      launchCodes.set(digest(code).toString('hex'), now() + launchCodeLifetimeMs)
      return code
    },
    /** The `Set-Cookie` value of a new console session. */
    sessionCookieHeader(): string {
      const nonce = randomBytes(18).toString('base64url')
      return `${sessionCookie}=${nonce}.${sessionMac(nonce)}; HttpOnly; SameSite=Strict; Path=/`
    }
  }
}

/** The request guard's type, as the transports take it. */
export type RequestGuard = ReturnType<typeof createRequestGuard>

function cookieOf(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=')
    if (key === name) return rest.join('=')
  }
  return undefined
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}
