import { airlockContract } from '@shared/ipc'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import { createWebSocketTransport, type WebSocketTransport, type WebSocketTransportOptions } from './websocket-transport'

// A real WebSocket server on 127.0.0.1 plays main, so each test scripts exactly what main sends;
// the transport under test runs unchanged, with the `ws` client standing in for the browser's.

type CallFrame = { type: 'call'; id: number; channel: string; input: unknown }
type Peer = { socket: WebSocket; send(frame: unknown): void; sendRaw(data: string | Buffer): void }
type Main = { url: string; calls: CallFrame[]; peers: Peer[]; connections: number; stop(): Promise<void> }

const info = { appVersion: '1.0.0', home: '/h', databasePath: '/h/airlock.db', transport: 'websocket', platform: 'linux-x64', nodeVersion: '20' }

/** Starts a scripted main: `answer` decides the reply to each call (undefined: stay silent). */
async function startMain(answer: (call: CallFrame, peer: Peer) => unknown = () => undefined): Promise<Main> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((resolve) => wss.once('listening', resolve))
  const main: Main = {
    url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/ws`,
    calls: [],
    peers: [],
    connections: 0,
    async stop() {
      for (const client of wss.clients) client.terminate()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    }
  }
  wss.on('connection', (socket) => {
    main.connections++
    const peer: Peer = { socket, send: (frame) => socket.send(JSON.stringify(frame)), sendRaw: (data) => socket.send(data) }
    main.peers.push(peer)
    socket.on('message', (data: RawData) => {
      const call = JSON.parse(data.toString()) as CallFrame
      main.calls.push(call)
      const reply = answer(call, peer)
      if (reply !== undefined) peer.send({ type: 'result', id: call.id, result: reply })
    })
  })
  return main
}

const opened: WebSocketTransport[] = []
const mains: Main[] = []
afterEach(async () => {
  for (const transport of opened.splice(0)) transport.close()
  for (const main of mains.splice(0)) await main.stop()
})

function connect(main: Pick<Main, 'url'>, options: Partial<WebSocketTransportOptions> = {}) {
  const reports: string[] = []
  const status: boolean[] = []
  const transport = createWebSocketTransport({
    url: main.url,
    contract: airlockContract,
    onStatus: (connected) => status.push(connected),
    onMalformedFrame: (reason) => reports.push(reason),
    openSocket: (url) => {
      const socket = new WebSocket(url)
      // Node's EventEmitter throws on an unheard 'error'; a browser socket just closes, as this then does.
      socket.on('error', () => undefined)
      return socket
    },
    ...options
  })
  opened.push(transport)
  return { transport, reports, status }
}

async function scripted(answer?: Parameters<typeof startMain>[0]) {
  const main = await startMain(answer)
  mains.push(main)
  return main
}

describe('web console transport: calls', () => {
  it('sends a call frame and resolves with the answer, validated against the contract', async () => {
    const main = await scripted(() => ({ ok: true, value: info }))
    const { transport } = connect(main)
    await expect(transport.invoke('airlock:system:info', {})).resolves.toEqual({ ok: true, value: info })
    expect(main.calls).toEqual([{ type: 'call', id: 1, channel: 'airlock:system:info', input: {} }])
  })

  it('passes a failure from main through unchanged', async () => {
    const main = await scripted(() => ({ ok: false, error: { code: 'not_found', message: 'No live handle h-1.' } }))
    const { transport } = connect(main)
    await expect(transport.invoke('airlock:resources:checkHealth', { handleId: 'h-1' })).resolves.toEqual({
      ok: false,
      error: { code: 'not_found', message: 'No live handle h-1.' }
    })
  })

  it('ends a call main never answers with a timeout result, and ignores the late answer', async () => {
    const main = await scripted((call) => (call.id === 1 ? undefined : { ok: true, value: info }))
    const { transport, reports } = connect(main, { callTimeoutMs: 150 })
    const started = Date.now()
    await expect(transport.invoke('airlock:system:info', {})).resolves.toEqual({
      ok: false,
      error: { code: 'timeout', message: 'Airlock did not answer airlock:system:info within 0.15 s.' }
    })
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
    main.peers[0]!.send({ type: 'result', id: 1, result: { ok: true, value: info } })
    await expect(transport.invoke('airlock:system:info', {})).resolves.toEqual({ ok: true, value: info })
    expect(reports).toEqual([])
  })

  it('fails pending calls with disconnected when the socket closes, then reconnects', async () => {
    const main = await scripted((call, peer) => (call.id === 1 ? void peer.socket.terminate() : { ok: true, value: info }))
    const { transport, status } = connect(main, { callTimeoutMs: 10_000 })
    const started = Date.now()
    await expect(transport.invoke('airlock:system:info', {})).resolves.toEqual({
      ok: false,
      error: { code: 'disconnected', message: 'The console lost its connection to Airlock.' }
    })
    expect(Date.now() - started).toBeLessThan(2000)
    await expect(transport.invoke('airlock:system:info', {})).resolves.toEqual({ ok: true, value: info })
    expect(main.connections).toBe(2)
    expect(status).toEqual([true, false, true])
  })

  it('fails a call with disconnected when main cannot be reached within the connect timeout', async () => {
    const gone = await startMain()
    await gone.stop()
    const { transport } = connect(gone, { connectTimeoutMs: 300 })
    await expect(transport.invoke('airlock:system:info', {})).resolves.toMatchObject({ ok: false, error: { code: 'disconnected' } })
  })

  it('refuses a channel outside the contract without sending anything', async () => {
    const main = await scripted(() => ({ ok: true, value: info }))
    const { transport } = connect(main)
    for (const channel of ['airlock:system:nope', 'airlock:constructor:get', 'airlock:settings:toString', 'system:info']) {
      await expect(transport.invoke(channel, {})).resolves.toMatchObject({ ok: false, error: { code: 'unknown_call' } })
    }
    expect(main.calls).toEqual([])
  })

  it('close() fails pending calls and stops reconnecting', async () => {
    const main = await scripted()
    const { transport } = connect(main, { callTimeoutMs: 10_000 })
    const call = transport.invoke('airlock:system:info', {})
    await expect.poll(() => main.calls.length).toBe(1)
    transport.close()
    await expect(call).resolves.toMatchObject({ ok: false, error: { code: 'disconnected' } })
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(main.connections).toBe(1)
    await expect(transport.invoke('airlock:system:info', {})).resolves.toMatchObject({ ok: false, error: { code: 'disconnected' } })
  })
})

describe('web console transport: frames from main are checked', () => {
  const hostileAnswers: [string, (id: number) => string | Buffer, RegExp][] = [
    ['a result without ok', (id) => JSON.stringify({ type: 'result', id, result: { value: info } }), /not a result or event frame/],
    [
      'an error result without a code',
      (id) => JSON.stringify({ type: 'result', id, result: { ok: false, error: { message: 'x' } } }),
      /not a result or event frame/
    ],
    [
      'a value that breaks the output schema',
      (id) => JSON.stringify({ type: 'result', id, result: { ok: true, value: { ...info, home: 42 } } }),
      /airlock:system:info result \(home: /
    ],
    ['a value of the wrong kind', (id) => JSON.stringify({ type: 'result', id, result: { ok: true, value: 'pwned' } }), /airlock:system:info result/]
  ]
  for (const [name, frame, reason] of hostileAnswers) {
    it(`answers the call with malformed_frame at once for ${name}, and reports it`, async () => {
      const main = await scripted((call, peer) => void peer.sendRaw(frame(call.id)))
      const { transport, reports } = connect(main, { callTimeoutMs: 10_000 })
      const started = Date.now()
      const result = await transport.invoke('airlock:system:info', {})
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'malformed_frame', message: expect.stringMatching(/^Airlock answered airlock:system:info with a malformed frame: /) }
      })
      expect(Date.now() - started).toBeLessThan(2000)
      expect(reports).toEqual([expect.stringMatching(reason)])
    })
  }

  it('drops frames that are not JSON, binary, of unknown type or on unknown channels, and keeps working', async () => {
    const main = await scripted(() => ({ ok: true, value: info }))
    const { transport, reports } = connect(main)
    const changes: unknown[] = []
    transport.subscribe('airlock:settings:changed', (payload) => changes.push(payload))
    await expect(transport.invoke('airlock:system:info', {})).resolves.toMatchObject({ ok: true })
    const peer = main.peers[0]!
    peer.sendRaw('not json {')
    peer.sendRaw(Buffer.from([1, 2, 3]))
    peer.send({ type: 'shout', id: 1 })
    peer.send({ type: 'event', channel: 'airlock:nope:changed', payload: {} })
    peer.send({ type: 'event', channel: 'airlock:constructor:changed', payload: {} })
    peer.send({ type: 'event', channel: 'airlock:resources:changed', payload: { handleId: 7 } })
    peer.send({ type: 'result', id: 99, result: 'nonsense' })
    await expect.poll(() => reports.length).toBe(7)
    expect(reports).toEqual([
      'a frame that is not JSON',
      'a binary frame',
      expect.stringMatching(/^not a result or event frame/),
      'an event on unknown channel "airlock:nope:changed"',
      'an event on unknown channel "airlock:constructor:changed"',
      expect.stringMatching(/^airlock:resources:changed payload \(handleId: /),
      expect.stringMatching(/^not a result or event frame/)
    ])
    await expect(transport.invoke('airlock:system:info', {})).resolves.toEqual({ ok: true, value: info })
    expect(changes).toEqual([])
  })

  it('delivers a valid event to its listeners only, parsed by the contract', async () => {
    const main = await scripted(() => ({ ok: true, value: info }))
    const { transport, reports } = connect(main)
    const changed: unknown[] = []
    const progress: unknown[] = []
    transport.subscribe('airlock:resources:changed', (payload) => changed.push(payload))
    const unsubscribe = transport.subscribe('airlock:providers:imageProgress', (payload) => progress.push(payload))
    unsubscribe()
    await transport.invoke('airlock:system:info', {})
    main.peers[0]!.send({ type: 'event', channel: 'airlock:resources:changed', payload: { handleId: 'h-1', extra: 'stripped' } })
    main.peers[0]!.send({ type: 'event', channel: 'airlock:providers:imageProgress', payload: { image: 'i', stage: 's' } })
    await expect.poll(() => changed).toEqual([{ handleId: 'h-1' }])
    expect(progress).toEqual([])
    expect(reports).toEqual([])
  })
})
