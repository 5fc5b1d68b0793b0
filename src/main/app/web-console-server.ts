import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Host } from '../host'
import { createConsoleToken, createRequestGuard, tokenCookie } from './request-guard'
import { readRendererFile } from './static-files'
import { attachWebSocketTransport } from './websocket-transport'

/** Content-Security-Policy of the web console (the Electron build carries the same as a meta tag). */
export const consoleCsp =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'"

/** A running web console. */
export type WebConsole = { url: string; port: number; token: string; close(): Promise<void> }

/** Where and how to serve the web console. */
export type WebConsoleOptions = {
  host: Pick<Host, 'dispatch' | 'events'>
  /** Folder of the built renderer (`out/renderer`). */
  rendererDir: string
  /** 0 picks a free port. */
  port: number
  token?: string
}

/** A port that is already taken, reported with what to do. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError'
  readonly code = 'port_in_use'
}

/**
 * Serves the built renderer and the contract over HTTP + WebSocket on 127.0.0.1 only, guarded
 * by a random token (in the printed URL, then an HttpOnly cookie) and Host/Origin checks.
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
    const refusal = guard.check(request)
    if (refusal) {
      response.writeHead(refusal.status, { 'content-type': 'text/plain; charset=utf-8' })
      response.end(`${refusal.status}: ${refusal.reason}. Open the URL that \`airlock serve\` printed.\n`)
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' })
      response.end()
      return
    }
    const file = await readRendererFile(options.rendererDir, new URL(request.url ?? '/', 'http://x').pathname)
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
    if (guard.tokenInQuery(request)) {
      headers['set-cookie'] = `${tokenCookie}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`
    }
    response.writeHead(200, headers)
    response.end(request.method === 'HEAD' ? undefined : file.body)
  }

  const detachWebSocket = attachWebSocketTransport(server, {
    dispatch: options.host.dispatch,
    subscribe: (listener) => options.host.events.subscribe(listener),
    guard
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(`Port ${options.port} on 127.0.0.1 is in use; choose another with --port.`)
          : error
      )
    )
    server.listen(options.port, '127.0.0.1', () => resolve())
  })
  port = (server.address() as AddressInfo).port

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    async close() {
      await detachWebSocket()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
