import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { wireCallSchema, wirePath, type WireServerFrame } from '@shared/ipc'
import { contractErrorCodes, fail } from '@shared/result'
import { formatIssues, maxInputBytes, type CallDispatcher, type ContractEventListener } from '../ipc'
import type { RequestGuard } from './request-guard'

/** What the WebSocket transport needs: the host's dispatcher and event feed, and the guard. */
export type WebSocketTransportOptions = {
  dispatch: CallDispatcher
  subscribe: (listener: ContractEventListener) => () => void
  guard: RequestGuard
}

/**
 * Carries the typed contract over a WebSocket for the web console: the same dispatcher (and so
 * the same validation and handlers) as Electron IPC. Upgrades pass the same guard as HTTP.
 */
export function attachWebSocketTransport(server: Server, options: WebSocketTransportOptions): { close(): Promise<void>; dropAll(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxInputBytes + 4096 })

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const verdict =
      new URL(request.url ?? '/', 'http://x').pathname === wirePath
        ? options.guard.check(request)
        : { refusal: { status: 403 as const, reason: 'unknown path' } }
    if ('refusal' in verdict) {
      const { refusal } = verdict
      socket.end(`HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => serveConnection(ws, options))
  }
  server.on('upgrade', onUpgrade)

  return {
    async close() {
      server.off('upgrade', onUpgrade)
      for (const client of wss.clients) client.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    },
    /** Ends every open console connection (the token changed: each must prove itself again). */
    dropAll() {
      for (const client of wss.clients) client.close(4001, 'the console token changed')
    }
  }
}

function serveConnection(ws: WebSocket, options: WebSocketTransportOptions): void {
  const send = (frame: WireServerFrame) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame))
  }
  const unsubscribe = options.subscribe((channel, payload) => send({ type: 'event', channel, payload }))
  ws.on('close', unsubscribe)
  ws.on('message', async (data, isBinary) => {
    let frame: unknown
    try {
      frame = isBinary ? undefined : JSON.parse(data.toString())
    } catch {
      frame = undefined
    }
    const call = wireCallSchema.safeParse(frame)
    if (!call.success) {
      const id = typeof (frame as { id?: unknown })?.id === 'number' ? (frame as { id: number }).id : -1
      send({ type: 'result', id, result: fail(contractErrorCodes.validation, formatIssues(call.error.issues)) })
      return
    }
    // The dispatcher never throws by contract; a bug there must still not become an unhandled
    // rejection, which would end the whole console process.
    const result = await options
      .dispatch(call.data.channel, call.data.input, { transport: 'websocket' })
      .catch((error: unknown) => fail(contractErrorCodes.internal, error instanceof Error ? error.message : String(error)))
    send({ type: 'result', id: call.data.id, result })
  })
}
