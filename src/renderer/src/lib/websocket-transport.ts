import { wirePath, wireServerFrameSchema, type ContractTransport } from '@shared/ipc'
import { contractErrorCodes, fail, type Result } from '@shared/result'

/**
 * The web console's transport: contract calls and events over one WebSocket to the server that
 * served this page. Reconnects with backoff; calls made while disconnected fail with `disconnected`.
 */
export function createWebSocketTransport(location: Location, onStatus: (connected: boolean) => void): ContractTransport {
  const token = new URLSearchParams(location.search).get('token') ?? ''
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${wirePath}?token=${encodeURIComponent(token)}`
  const pending = new Map<number, (result: Result<unknown>) => void>()
  const listeners = new Map<string, Set<(payload: unknown) => void>>()
  let nextId = 1
  let socket: WebSocket
  let opened: Promise<void>
  let retryMs = 250

  const connect = () => {
    socket = new WebSocket(url)
    opened = new Promise((resolve) => socket.addEventListener('open', () => resolve(), { once: true }))
    socket.addEventListener('open', () => {
      retryMs = 250
      onStatus(true)
    })
    socket.addEventListener('message', (message) => {
      const frame = wireServerFrameSchema.safeParse(JSON.parse(String(message.data)))
      if (!frame.success) return
      if (frame.data.type === 'result') {
        pending.get(frame.data.id)?.(frame.data.result as Result<unknown>)
        pending.delete(frame.data.id)
      } else {
        for (const listener of listeners.get(frame.data.channel) ?? []) listener(frame.data.payload)
      }
    })
    socket.addEventListener('close', () => {
      onStatus(false)
      for (const settle of pending.values()) settle(fail(contractErrorCodes.disconnected, 'The console lost its connection to Airlock.'))
      pending.clear()
      setTimeout(connect, retryMs)
      retryMs = Math.min(retryMs * 2, 5000)
    })
  }
  connect()

  return {
    async invoke(channel, input) {
      await Promise.race([opened, new Promise((resolve) => setTimeout(resolve, 5000))])
      if (socket.readyState !== WebSocket.OPEN) {
        return fail(contractErrorCodes.disconnected, 'Airlock is not reachable; is `airlock serve` still running?')
      }
      const id = nextId++
      return new Promise<Result<unknown>>((resolve) => {
        pending.set(id, resolve)
        socket.send(JSON.stringify({ type: 'call', id, channel, input }))
      })
    },
    subscribe(channel, listener) {
      const set = listeners.get(channel) ?? new Set()
      set.add(listener)
      listeners.set(channel, set)
      return () => set.delete(listener)
    }
  }
}
