import { request } from 'node:http'
import { resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { serve, type RunningConsole } from '../src/main/serve'
import { makeTempDir } from './support/temp-home'

let dir: ReturnType<typeof makeTempDir>
let running: RunningConsole
let token: string

beforeEach(async () => {
  dir = makeTempDir()
  running = await serve({ home: dir.path, port: 0, rendererDir: resolve(__dirname, '../out/renderer'), open: false, print: () => undefined })
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

describe('web console HTTP guard', () => {
  it('serves the app with the token, then by cookie, with a strict CSP', async () => {
    const page = await get(`/?token=${token}`)
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toMatch(/default-src 'self'.*frame-ancestors 'none'/)
    const cookie = String(page.headers['set-cookie']).split(';')[0]!
    expect(String(page.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/)
    const script = /src="\.?(\/assets\/[^"]+\.js)"/.exec(page.body)![1]!
    expect((await get(script, { cookie })).status).toBe(200)
  })

  it('refuses requests without a token (401) or with a wrong one (401)', async () => {
    expect((await get('/')).status).toBe(401)
    expect((await get('/?token=nope')).status).toBe(401)
    expect((await get('/', { cookie: 'airlock_token=nope' })).status).toBe(401)
  })

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin even with the token', async () => {
    expect((await get(`/?token=${token}`, { host: `evil.example:${running.console.port}` })).status).toBe(421)
    expect((await get(`/?token=${token}`, { host: 'localhost:1' })).status).toBe(421)
    expect((await get(`/?token=${token}`, { origin: 'http://evil.example' })).status).toBe(403)
  })

  it('never serves files outside the built renderer', async () => {
    for (const path of ['/../../../../etc/passwd', '/..%2f..%2f..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/package.json']) {
      const response = await get(`${path}?token=${token}`)
      expect(response.body).not.toMatch(/root:x:0|"name": "airlock"/)
    }
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
      await expect.poll(() => events).toContainEqual({
        type: 'event',
        channel: 'airlock:settings:changed',
        payload: expect.objectContaining({ key: 'console.port', value: 7999 })
      })
      ws.send('not json')
      ws.send(JSON.stringify({ type: 'call', id: 9, channel: 'airlock:system:info', input: {}, extra: true }))
      expect(await call(ws, 10, 'airlock:system:info', {})).toMatchObject({ ok: true })
    } finally {
      ws.close()
      watcher.close()
    }
  })
})
