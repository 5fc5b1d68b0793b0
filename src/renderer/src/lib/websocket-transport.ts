import { parseChannel, wirePath, wireServerFrameSchema, type CallSpec, type ContractTransport, type NamespaceSpec } from '@shared/ipc'
import { contractErrorCodes, fail, type Result } from '@shared/result'

/** Error codes this transport adds to the contract's own (a call result, never a throw). */
export const transportErrorCodes = {
  /** Main did not answer within the call timeout; the call may still have run there. */
  timeout: 'timeout',
  /** Main answered with a frame the contract does not allow. */
  malformedFrame: 'malformed_frame'
} as const

/** How long a call waits for its answer before it fails with `timeout` (probes take seconds). */
export const defaultCallTimeoutMs = 30_000

/** The part of the browser `WebSocket` the transport uses, so tests can hand in the `ws` client. */
export type SocketLike = {
  readonly readyState: number
  send(data: string): void
  close(): void
  addEventListener(type: 'open' | 'close', listener: () => void): void
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void
}

/** Where and how the transport connects, and where it reports what it had to drop. */
export type WebSocketTransportOptions = {
  url: string
  contract: Record<string, NamespaceSpec>
  onStatus?: (connected: boolean) => void
  /** A frame from main that breaks the contract was dropped; says why (for the console log). */
  onMalformedFrame?: (reason: string) => void
  callTimeoutMs?: number
  /** How long a call made while (re)connecting waits for the socket before `disconnected`. */
  connectTimeoutMs?: number
  openSocket?: (url: string) => SocketLike
}

/** The contract transport over a WebSocket, plus `close` (stops reconnecting, fails pending calls). */
export type WebSocketTransport = ContractTransport & { close(): void }

/**
 * The web console's socket URL: the server that served this page. The browser proves itself with
 * the session cookie the page was served with (the page's URL never keeps a credential).
 */
export function consoleSocketUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${wirePath}`
}

const socketOpen = 1
type PendingCall = { spec: CallSpec; channel: string; settle: (result: Result<unknown>) => void }

/**
 * The web console's transport: contract calls and events over one WebSocket. Every frame from
 * main is checked against the wire and contract schemas (a bad one is dropped and reported),
 * every call ends (answer, timeout or disconnect), and the socket reconnects with backoff.
 */
export function createWebSocketTransport(options: WebSocketTransportOptions): WebSocketTransport {
  const callTimeoutMs = options.callTimeoutMs ?? defaultCallTimeoutMs
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000
  const openSocket = options.openSocket ?? ((url: string) => new WebSocket(url))
  const report = options.onMalformedFrame ?? ((reason: string) => console.warn(`Airlock: dropped a frame from main: ${reason}`))
  const pending = new Map<number, PendingCall>()
  const listeners = new Map<string, Set<(payload: unknown) => void>>()
  const openWaiters = new Set<() => void>()
  let nextId = 1
  let socket: SocketLike
  let retryMs = 250
  let retryTimer: ReturnType<typeof setTimeout> | undefined
  let closed = false

  const onMessage = (data: unknown) => {
    const problem = (reason: string, id?: number) => {
      report(reason)
      const call = id === undefined ? undefined : pending.get(id)
      if (call) call.settle(fail(transportErrorCodes.malformedFrame, `Airlock answered ${call.channel} with a malformed frame: ${reason}`))
    }
    let json: unknown
    try {
      if (typeof data !== 'string') return problem('a binary frame')
      json = JSON.parse(data)
    } catch {
      return problem('a frame that is not JSON')
    }
    const frame = wireServerFrameSchema.safeParse(json)
    if (!frame.success) return problem(`not a result or event frame (${issuesOf(frame.error)})`, idOf(json))
    if (frame.data.type === 'event') {
      const spec = specOf(options.contract, frame.data.channel, 'events')
      if (!spec) return problem(`an event on unknown channel ${JSON.stringify(frame.data.channel).slice(0, 120)}`)
      const payload = spec.payload.safeParse(frame.data.payload)
      if (!payload.success) return problem(`${frame.data.channel} payload (${issuesOf(payload.error)})`)
      for (const listener of listeners.get(frame.data.channel) ?? []) listener(payload.data)
      return
    }
    const call = pending.get(frame.data.id)
    // No pending call: it already timed out or failed; its late answer has nobody to go to.
    if (!call) return
    if (!frame.data.result.ok) return call.settle(frame.data.result)
    const value = call.spec.output.safeParse(frame.data.result.value)
    if (!value.success) return problem(`${call.channel} result (${issuesOf(value.error)})`, frame.data.id)
    call.settle({ ok: true, value: value.data })
  }

  const connect = () => {
    socket = openSocket(options.url)
    socket.addEventListener('open', () => {
      retryMs = 250
      options.onStatus?.(true)
      for (const wake of openWaiters) wake()
    })
    socket.addEventListener('message', (event) => onMessage(event.data))
    socket.addEventListener('close', () => {
      options.onStatus?.(false)
      failPending('The console lost its connection to Airlock.')
      for (const wake of openWaiters) wake()
      if (closed) return
      retryTimer = setTimeout(connect, retryMs)
      retryMs = Math.min(retryMs * 2, 5000)
    })
  }

  const failPending = (message: string) => {
    for (const call of [...pending.values()]) call.settle(fail(contractErrorCodes.disconnected, message))
  }

  /** Resolves when the socket opens or closes, or after `ms`; the caller checks which. */
  const settleOpening = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        openWaiters.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      openWaiters.add(wake)
    })

  connect()

  return {
    async invoke(channel, input) {
      const spec = specOf(options.contract, channel, 'calls')
      if (!spec) return fail(contractErrorCodes.unknownCall, `Unknown call ${JSON.stringify(channel).slice(0, 120)}.`)
      if (!closed && socket.readyState !== socketOpen) await settleOpening(connectTimeoutMs)
      if (closed || socket.readyState !== socketOpen) {
        return fail(contractErrorCodes.disconnected, 'Airlock is not reachable; is `airlock serve` still running?')
      }
      const id = nextId++
      return new Promise<Result<unknown>>((resolve) => {
        const timer = setTimeout(
          () => call.settle(fail(transportErrorCodes.timeout, `Airlock did not answer ${channel} within ${callTimeoutMs / 1000} s.`)),
          callTimeoutMs
        )
        const call: PendingCall = {
          spec,
          channel,
          settle: (result) => {
            clearTimeout(timer)
            pending.delete(id)
            resolve(result)
          }
        }
        pending.set(id, call)
        socket.send(JSON.stringify({ type: 'call', id, channel, input }))
      })
    },
    subscribe(channel, listener) {
      const set = listeners.get(channel) ?? new Set()
      set.add(listener)
      listeners.set(channel, set)
      return () => set.delete(listener)
    },
    close() {
      closed = true
      clearTimeout(retryTimer)
      failPending('The console closed its connection to Airlock.')
      socket.close()
    }
  }
}

/** The contract's spec for a channel, by own keys only (`constructor` must not reach Object.prototype). */
function specOf<K extends 'calls' | 'events'>(contract: Record<string, NamespaceSpec>, channel: string, kind: K): NamespaceSpec[K][string] | undefined {
  const parsed = parseChannel(channel)
  if (!parsed || !Object.hasOwn(contract, parsed.namespace)) return undefined
  const entries = contract[parsed.namespace]![kind] as NamespaceSpec[K]
  return Object.hasOwn(entries, parsed.name) ? (entries[parsed.name] as NamespaceSpec[K][string]) : undefined
}

function idOf(json: unknown): number | undefined {
  const id = (json as { id?: unknown } | null)?.id
  return typeof json === 'object' && typeof id === 'number' ? id : undefined
}

function issuesOf(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(frame)'}: ${issue.message}`)
    .join('; ')
}
