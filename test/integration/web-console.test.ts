import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { serve, type RunningConsole } from '../../src/main/app/serve'
import { makeTempDir } from '../support/temp-home'

let dir: ReturnType<typeof makeTempDir>
let running: RunningConsole
let token: string

beforeEach(async () => {
  dir = makeTempDir()
  running = await serve({ home: dir.path, port: 0, gatewayPort: 0, rendererDir: resolve(__dirname, '../../out/renderer'), open: false, print: () => undefined })
  token = running.console.token
})
afterEach(async () => {
  await running.stop()
  dir.remove()
})

/** A raw HTTP GET with chosen headers (fetch does not let us set Host). */
function get(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((done, fail) => {
    const req = request({ host: '127.0.0.1', port: running.console.port, path, headers }, (res) => {
      let body = ''
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', fail)
    req.end()
  })
}

function connect(query: string, headers: Record<string, string> = {}) {
  return new Promise<WebSocket>((done, fail) => {
    const ws = new WebSocket(`ws://127.0.0.1:${running.console.port}/ws${query}`, { headers })
    ws.once('open', () => done(ws))
    ws.once('unexpected-response', (_req, res) => fail(new Error(`status ${res.statusCode}`)))
    ws.once('error', fail)
  })
}

function call(ws: WebSocket, id: number, channel: string, input: unknown) {
  return new Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }>((done) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString())
      if (frame.type === 'result' && frame.id === id) {
        ws.off('message', onMessage)
        done(frame.result)
      }
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify({ type: 'call', id, channel, input }))
  })
}

/** A session cookie, as a browser gets it for the printed URL. */
async function sessionCookie(): Promise<string> {
  return String((await get(`/?token=${token}`)).headers['set-cookie']).split(';')[0]!
}

describe('web console HTTP guard', () => {
  it('exchanges the token for a session cookie (a redirect drops it from the URL), then serves the app by cookie, with a strict CSP', async () => {
    const exchange = await get(`/?token=${token}`)
    expect(exchange.status).toBe(303)
    expect(exchange.headers.location).toBe('/')
    expect(String(exchange.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/)
    const cookie = String(exchange.headers['set-cookie']).split(';')[0]!
    const page = await get('/', { cookie })
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'.*frame-ancestors 'none'/)
    const script = /src="\.?(\/assets\/[^"]+\.js)"/.exec(page.body)![1]!
    expect((await get(script, { cookie })).status).toBe(200)
    // The page names its icon, which is served (no /favicon.ico 404 on every load).
    const icon = /<link rel="icon"[^>]*href="\.?(\/assets\/[^"]+)"/.exec(page.body)![1]!
    expect((await get(icon, { cookie })).status).toBe(200)
  })

  it('refuses requests without a token (401) or with a wrong one (401)', async () => {
    expect((await get('/')).status).toBe(401)
    expect((await get('/?token=nope')).status).toBe(401)
    expect((await get('/', { cookie: 'airlock_session=nope' })).status).toBe(401)
  })

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin even with the token', async () => {
    expect((await get(`/?token=${token}`, { host: `evil.example:${running.console.port}` })).status).toBe(421)
    expect((await get(`/?token=${token}`, { host: 'localhost:1' })).status).toBe(421)
    expect((await get(`/?token=${token}`, { origin: 'http://evil.example' })).status).toBe(403)
  })

  // A path that climbs out of the renderer folder is read inside it instead: an extensionless
  // one gets the app's index.html (the app routes itself), a file name is 404. Both real files
  // named here exist (out/main/cli.js next to out/renderer, and the checkout's package.json).
  const escapes: [string, 200 | 404][] = [
    ['/../../../../etc/passwd', 200],
    ['/..%2f..%2f..%2f..%2fetc%2fpasswd', 200],
    ['/%2e%2e/%2e%2e/package.json', 404],
    ['/..%2f..%2fpackage.json', 404],
    ['/..%2fmain%2fcli.js', 404],
    ['/%2e%2e%5cmain%5ccli.js', 404],
    ['/index.html%00.js', 404]
  ]
  for (const [path, status] of escapes) {
    it(`never serves a file outside the built renderer: ${path} is ${status === 200 ? 'the app' : '404'}`, async () => {
      const index = readFileSync(resolve(__dirname, '../../out/renderer/index.html'), 'utf8')
      const response = await get(path, { cookie: await sessionCookie() })
      expect(response.status).toBe(status)
      expect(response.body).toBe(status === 200 ? index : 'Not found\n')
    })
  }
})

describe('the console token across restarts (issue 26)', () => {
  it('a restart keeps the token and the session cookie: an open tab reconnects by itself; --rotate-token ends both', async () => {
    const cookie = await sessionCookie()
    const port = running.console.port
    await running.stop()
    running = await serve({ home: dir.path, port, gatewayPort: 0, rendererDir: resolve(__dirname, '../../out/renderer'), open: false, print: () => undefined })
    expect(running.console.token).toBe(token)
    expect((await get('/', { cookie })).status).toBe(200)
    // A bookmark with the printed URL after the tab's session exists: the cookie wins, the URL is cleaned.
    const bookmarked = await get('/?token=stale-token-from-before', { cookie })
    expect(bookmarked.status).toBe(303)
    expect(bookmarked.headers.location).toBe('/')

    await running.stop()
    const warnings: string[] = []
    running = await serve({
      home: dir.path,
      port,
      gatewayPort: 0,
      rendererDir: resolve(__dirname, '../../out/renderer'),
      open: false,
      print: () => undefined,
      warn: (line) => warnings.push(line),
      rotateToken: true
    })
    expect(running.console.token).not.toBe(token)
    expect(warnings.join('\n')).toMatch(/made a new console token/)
    expect((await get('/', { cookie })).status).toBe(401)
    token = running.console.token
  })
})

describe('web console WebSocket transport', () => {
  it('refuses upgrades without the token or from a foreign origin', async () => {
    await expect(connect('')).rejects.toThrow(/401/)
    await expect(connect(`?token=${token}`, { origin: 'http://evil.example' })).rejects.toThrow(/403/)
    await expect(connect(`?token=${token}`, { host: 'evil.example' })).rejects.toThrow(/421/)
  })

  it('carries contract calls with the same validation as IPC, and pushes events', async () => {
    const ws = await connect(`?token=${token}`)
    const watcher = await connect(`?token=${token}`)
    const events: unknown[] = []
    watcher.on('message', (data) => events.push(JSON.parse(data.toString())))
    try {
      expect(await call(ws, 1, 'airlock:system:info', {})).toMatchObject({
        ok: true,
        value: { transport: 'websocket', home: dir.path }
      })
      expect(await call(ws, 2, 'airlock:settings:set', { key: 'console.port', value: 'x' })).toMatchObject({
        ok: false,
        error: { code: 'validation_failed' }
      })
      expect(await call(ws, 3, 'airlock:settings:set', { key: 'console.port', value: 7999 })).toMatchObject({
        ok: true,
        value: { value: 7999, isDefault: false }
      })
      await expect
        .poll(() => events)
        .toContainEqual({
          type: 'event',
          channel: 'airlock:settings:changed',
          payload: expect.objectContaining({ key: 'console.port', value: 7999 })
        })
    } finally {
      ws.close()
      watcher.close()
    }
  })

  it('answers malformed frames with validation_failed (id -1 when none can be read) and keeps serving', async () => {
    const ws = await connect(`?token=${token}`)
    const frames: { type: string; id: number; result: { ok: boolean; error?: { code: string } } }[] = []
    ws.on('message', (data) => frames.push(JSON.parse(data.toString())))
    try {
      ws.send('not json')
      await expect
        .poll(() => frames)
        .toEqual([{ type: 'result', id: -1, result: { ok: false, error: { code: 'validation_failed', message: expect.any(String) } } }])
      ws.send(JSON.stringify({ type: 'call', id: 9, channel: 'airlock:system:info', input: {}, extra: true }))
      await expect
        .poll(() => frames[1])
        .toEqual({ type: 'result', id: 9, result: { ok: false, error: { code: 'validation_failed', message: expect.stringMatching(/extra/) } } })
      ws.send(Buffer.from([0xff, 0x00]), { binary: true })
      await expect.poll(() => frames[2]).toMatchObject({ type: 'result', id: -1, result: { ok: false, error: { code: 'validation_failed' } } })
      expect(await call(ws, 10, 'airlock:system:info', {})).toMatchObject({ ok: true, value: { transport: 'websocket' } })
    } finally {
      ws.close()
    }
  })

  it('refuses channels named after Object.prototype members as unknown_call and keeps serving', async () => {
    const ws = await connect(`?token=${token}`)
    try {
      let id = 1
      for (const channel of ['airlock:constructor:get', 'airlock:toString:get', 'airlock:settings:toString', 'airlock:settings:constructor']) {
        expect(await call(ws, id++, channel, {})).toEqual({ ok: false, error: { code: 'unknown_call', message: `Unknown call ${JSON.stringify(channel)}.` } })
      }
      expect(await call(ws, id, 'airlock:system:info', {})).toMatchObject({ ok: true, value: { transport: 'websocket' } })
    } finally {
      ws.close()
    }
  })
})
