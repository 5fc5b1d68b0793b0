import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Host } from '../host'
import { createConsoleToken, createRequestGuard } from './request-guard'
import { readRendererFile } from './static-files'
import { attachWebSocketTransport } from './websocket-transport'
import { PortInUseError } from '../core'

/** Content-Security-Policy of the web console (the Electron build carries the same as a meta tag). */
export const consoleCsp =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'"

/**
 * A running web console. `url` carries the token: print it only to the operator's own stdout.
 * `launchUrl()` is what a browser the console opens itself gets: a one-time code, short-lived.
 */
export type WebConsole = {
  url: string
  port: number
  token: string
  launchUrl(): string
  /** Serves with a new token from now on (every open session ends); returns the URL that carries it. */
  useToken(token: string): string
  close(): Promise<void>
}

/** Where and how to serve the web console. */
export type WebConsoleOptions = {
  host: Pick<Host, 'dispatch' | 'events'>
  /** Folder of the built renderer (`out/renderer`). */
  rendererDir: string
  /** 0 picks a free port. */
  port: number
  token?: string
}

/**
 * Serves the built renderer and the contract over HTTP + WebSocket on 127.0.0.1 only, guarded
 * by Host/Origin checks and a credential (request-guard.ts). A page asked for with the token or a
 * launch code in its URL is answered with a redirect to the same page without it, and a session
 * cookie: the address bar, history and bookmarks never keep a credential, and the cookie is not
 * the token.
 */
export async function startWebConsole(options: WebConsoleOptions): Promise<WebConsole> {
  const token = options.token ?? createConsoleToken()
  let port = options.port
  const guard = createRequestGuard({ token, port: () => port })
  const server = createServer((request, response) => {
    void handleRequest(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500)
      response.end()
    })
  })

  async function handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const verdict = guard.check(request)
    if ('refusal' in verdict) {
      const { status, reason } = verdict.refusal
      response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' })
      response.end(`${status}: ${reason}. Open the URL that \`airlock serve\` printed.\n`)
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' })
      response.end()
      return
    }
    const url = new URL(request.url ?? '/', 'http://x')
    if (verdict.credential !== 'session' || url.searchParams.has('token') || url.searchParams.has('launch')) {
      // Exchange the URL's credential for a session cookie and drop it from the address bar (a
      // fragment such as `#/approvals` stays: browsers keep it across a redirect).
      url.searchParams.delete('token')
      url.searchParams.delete('launch')
      response.writeHead(303, {
        location: `${url.pathname}${url.search}`,
        ...(verdict.credential !== 'session' ? { 'set-cookie': guard.sessionCookieHeader() } : {}),
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer'
      })
      response.end()
      return
    }
    const file = await readRendererFile(options.rendererDir, url.pathname)
    if (!file) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
      response.end('Not found\n')
      return
    }
    const headers: Record<string, string> = {
      'content-type': file.contentType,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': file.isHtml ? 'no-store' : 'private, max-age=300'
    }
    if (file.isHtml) {
      headers['content-security-policy'] = consoleCsp
      headers['x-frame-options'] = 'DENY'
    }
    response.writeHead(200, headers)
    response.end(request.method === 'HEAD' ? undefined : file.body)
  }

  const webSocket = attachWebSocketTransport(server, {
    dispatch: options.host.dispatch,
    subscribe: (listener) => options.host.events.subscribe(listener),
    guard
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(`Port ${options.port} on 127.0.0.1 is in use; choose another with --port.`) : error)
    )
    server.listen(options.port, '127.0.0.1', () => resolve())
  })
  port = (server.address() as AddressInfo).port

  const running: WebConsole = {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    launchUrl: () => `http://127.0.0.1:${port}/?launch=${guard.issueLaunchCode()}`,
    useToken(next) {
      guard.setToken(next)
      // Open consoles were let in with the old token: each must prove itself again (after this
      // call's own answer has gone out to the console that asked).
      setTimeout(() => webSocket.dropAll(), 250).unref()
      running.token = next
      running.url = `http://127.0.0.1:${port}/?token=${next}`
      return running.url
    },
    async close() {
      await webSocket.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
  return running
}
