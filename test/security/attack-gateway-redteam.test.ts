import { execFileSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import { connect as netConnect, type Socket } from 'node:net'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAgentGateway, type AgentGateway } from '../../src/main/gateway'
import { createHost, gatewayDeps, type Host } from '../../src/main/host'
import { callTool, connectAgent, initializeBody, mcpHeaders, rawRequest, startServeWithGateway } from '../support/mcp-gateway-client'
import { startUpstream } from '../support/mcp-upstream'
import { airlockBin, runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// Red-team attacks on the agent gateway, written from its public contract (README "How an agent
// connects" / "The MCP gateway"). Every test asserts the SECURE behaviour: a failing test is a finding.

const filesOnly = { capabilities: ['files' as const], ask: 'never' as const }
const init = JSON.stringify(initializeBody)
// What the SDK client negotiates (a session's requests must name its version).
const protocol = { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }

/** A raw HTTP/1.x exchange on one socket: full control of the request line and headers. */
function rawExchange(port: number, data: string | Buffer, timeoutMs = 5000): Promise<{ status: number; text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = netConnect(port, '127.0.0.1')
    let text = ''
    let done = false
    const finish = (closed: boolean) => {
      if (done) return
      done = true
      socket.destroy()
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text)
      resolve({ status: match ? Number(match[1]) : 0, text, closed })
    }
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => {
      text += chunk
      // One complete response is enough (keep-alive would keep the socket open).
      const head = text.indexOf('\r\n\r\n')
      if (head >= 0) {
        const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, head))
        if (length && text.length - head - 4 >= Number(length[1])) finish(false)
        if (/\r\ntransfer-encoding: chunked/i.test(text.slice(0, head)) && text.endsWith('0\r\n\r\n')) finish(false)
      }
    })
    socket.on('close', () => finish(true))
    socket.on('error', () => finish(true))
    setTimeout(() => finish(false), timeoutMs).unref()
    socket.write(data)
  })
}

/** A raw request with repeated headers (node:http sends an array value as several header lines). */
function requestWithHeaders(
  url: string,
  headers: Record<string, string | string[]>,
  body?: string,
  method = 'POST'
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers, setHost: !('host' in headers) },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (c) => (text += c))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }))
      }
    )
    req.on('error', reject)
    req.end(body)
  })
}

/** Parses an SSE or JSON response body into its JSON-RPC messages. */
function messagesOf(body: string): { id?: unknown; result?: unknown; error?: { code: number; message: string } }[] {
  const trimmed = body.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const parsed = JSON.parse(trimmed) as unknown
    return (Array.isArray(parsed) ? parsed : [parsed]) as never
  }
  return (
    trimmed
      .split('\n')
      // An empty data line is a resumable stream's priming event (protocol 2025-11-25), not a message.
      .filter((line) => line.startsWith('data: ') && line.trim() !== 'data:')
      .flatMap((line) => {
        const parsed = JSON.parse(line.slice(6)) as unknown
        return (Array.isArray(parsed) ? parsed : [parsed]) as never[]
      })
  )
}

/** Every file under a directory (recursively), symlinks not followed. */
function filesUnder(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) out.push(path)
    }
  }
  if (existsSync(root)) walk(root)
  return out
}

/** The terminal control characters (ESC, BEL, CR, other C0 but TAB/LF, and C1) a text would send to a terminal. */
const controlCharsIn = (text: string): string[] => [
  ...new Set(
    [...text]
      .filter((c) => {
        const code = c.charCodeAt(0)
        return (code < 0x20 && c !== '\n' && c !== '\t') || code === 0x7f || (code >= 0x80 && code < 0xa0)
      })
      .map((c) => `U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  )
]

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('red team: the agent gateway in one process', () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let gateway: AgentGateway
  let upstream: Awaited<ReturnType<typeof startUpstream>>
  const tokens: Record<string, string> = {}
  const logged: string[] = []

  beforeAll(async () => {
    dir = makeTempDir('airlock-redteam-gateway-')
    upstream = await startUpstream()
    host = createHost({ home: dir.path, logError: (...args: unknown[]) => void logged.push(args.map(String).join(' ')) })
    await host.recovered
    for (const id of ['victim', 'attacker', 'batcher', 'flooder', 'shrinking', 'reborn'])
      tokens[id] = host.agents.service.create(id, { profile: filesOnly }).token
    tokens.mcpagent = host.agents.service.create('mcpagent', {
      profile: { ...filesOnly, capabilities: ['files', 'mcp'], mcpServers: [{ name: 'up', url: upstream.url }] }
    }).token
    for (const id of ['slowa', 'slowb'])
      tokens[id] = host.agents.service.create(id, { profile: { capabilities: ['files'], ask: 'always', approvalTimeoutSeconds: 60 } }).token
    gateway = await startAgentGateway({ deps: gatewayDeps(host), port: 0, logError: (...args: unknown[]) => void logged.push(args.map(String).join(' ')) })
  })
  afterAll(async () => {
    await gateway?.close()
    await host?.dispose()
    await upstream?.close()
    dir?.remove()
  })

  const sessionsOpen = () => host.store.sessions.list({}).filter((s) => s.endedAt === null).length
  const sessionCount = () => host.store.sessions.list({}).length
  const stillServes = async () => {
    const victim = await connectAgent(gateway.url, tokens.victim!)
    try {
      expect((await callTool(victim.client, 'list_directory', { path: '.' })).structuredContent).toMatchObject({ ok: true })
    } finally {
      await victim.close()
    }
  }
  const headOf = (path: string, headers: string[], body = init) =>
    `POST ${path} HTTP/1.1\r\n${headers.join('\r\n')}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`

  describe('header smuggling: Authorization', () => {
    it('two Authorization headers (wrong first, valid second) are refused; no session', async () => {
      const before = sessionCount()
      const response = await requestWithHeaders(
        gateway.url,
        { ...mcpHeaders(), authorization: ['Bearer alk_' + 'x'.repeat(43), `Bearer ${tokens.victim}`] },
        init
      )
      expect([400, 401]).toContain(response.status)
      expect(sessionCount()).toBe(before)
    })
    it('two Authorization headers (valid first, wrong second) are ambiguous and refused; no session', async () => {
      const before = sessionCount()
      const response = await requestWithHeaders(
        gateway.url,
        { ...mcpHeaders(), authorization: [`Bearer ${tokens.victim}`, 'Bearer alk_' + 'x'.repeat(43)] },
        init
      )
      expect([400, 401]).toContain(response.status)
      expect(sessionCount()).toBe(before)
    })
    it("two Authorization headers carrying two agents' valid tokens are refused; no session", async () => {
      const before = sessionCount()
      const response = await requestWithHeaders(gateway.url, { ...mcpHeaders(), authorization: [`Bearer ${tokens.attacker}`, `Bearer ${tokens.victim}`] }, init)
      expect([400, 401]).toContain(response.status)
      expect(sessionCount()).toBe(before)
    })
    const variants: [string, (t: string) => string][] = [
      ['a comma list of two bearer credentials', (t) => `Bearer ${t}, Bearer ${tokens.attacker}`],
      ['the token with a suffix', (t) => `Bearer ${t}x`],
      ['the token upper-cased', (t) => `Bearer ${t.toUpperCase()}`],
      ['the token followed by a NUL-like escaped byte', (t) => `Bearer ${t}%00`],
      ['the scheme without a space', (t) => `Bearer${t}`],
      ['the token url-encoded with a trailing %0A', (t) => `Bearer ${t}%0A`],
      ['an empty bearer', () => 'Bearer '],
      ['the token with a zero-width space appended', (t) => `Bearer ${t}\u200b`]
    ]
    for (const [name, value] of variants) {
      it(`refuses ${name}: 401`, async () => {
        const v = value(tokens.victim!)
        // node:http refuses non-latin1 header values; send those raw.
        const response = /[^\x20-\x7e]/.test(v)
          ? await rawExchange(gateway.port, Buffer.from(headOf('/mcp', [`host: 127.0.0.1:${gateway.port}`, `authorization: ${v}`]), 'utf8')).then((r) => ({
              status: r.status
            }))
          : await rawRequest(gateway.url, { headers: { ...mcpHeaders(), authorization: v }, body: init })
        expect([400, 401]).toContain(response.status)
      })
    }
    it("a lower-case 'bearer' scheme (RFC 9110: case-insensitive) selects the token's own agent or is refused, never another", async () => {
      const response = await rawRequest(gateway.url, { headers: { ...mcpHeaders(), authorization: `bearer ${tokens.attacker}` }, body: init })
      expect([200, 401]).toContain(response.status)
      if (response.status === 200) expect(host.store.sessions.listByAgent('attacker').some((s) => s.id === response.headers['mcp-session-id'])).toBe(true)
    })
    it('a token with trailing whitespace (stripped by HTTP as OWS) selects the same agent or is refused, never another agent', async () => {
      const response = await rawExchange(gateway.port, headOf('/mcp', [`host: 127.0.0.1:${gateway.port}`, `authorization: Bearer ${tokens.victim}\t \t`]))
      expect([200, 401]).toContain(response.status)
      if (response.status === 200) {
        const sessionId = /\r\nmcp-session-id: ([^\r]+)/i.exec(response.text)![1]!
        expect(host.store.sessions.listByAgent('victim').some((s) => s.id === sessionId)).toBe(true)
      }
    })
    it('a CR/LF inside the Authorization value (header injection) is a 400 from the parser, the gateway keeps serving', async () => {
      const response = await rawExchange(
        gateway.port,
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\nauthorization: Bearer ${tokens.victim}\rX-Evil: 1\r\ncontent-length: 0\r\n\r\n`
      )
      expect([0, 400]).toContain(response.status)
      await stillServes()
    })
    it('401 bodies do not tell a disabled agent from an unknown token (no oracle about other agents)', async () => {
      const { token } = host.agents.service.create('oracle', { profile: filesOnly })
      host.agents.service.disable('oracle')
      const disabled = await rawRequest(gateway.url, { headers: mcpHeaders(token), body: init })
      const unknown = await rawRequest(gateway.url, { headers: mcpHeaders('alk_' + 'q'.repeat(43)), body: init })
      expect(disabled.status).toBe(401)
      expect(disabled.body).toBe(unknown.body)
      expect(disabled.headers['www-authenticate']).toBe(unknown.headers['www-authenticate'])
    })
  })

  describe('Host header variants (DNS rebinding)', () => {
    const hosts: [string, (port: number) => string][] = [
      ['127.0.0.1 with a trailing dot', (p) => `127.0.0.1.:${p}`],
      ['localhost on another port', (p) => `localhost:${p + 1}`],
      ['[::1] without a port', () => '[::1]'],
      ['0.0.0.0 (the "0.0.0.0 day" route browsers allow to loopback)', (p) => `0.0.0.0:${p}`],
      ['127.0.0.2 (another loopback address)', (p) => `127.0.0.2:${p}`],
      ['the decimal form of 127.0.0.1', (p) => `2130706433:${p}`],
      ['127.1 shorthand', (p) => `127.1:${p}`],
      ['userinfo before the host', (p) => `evil.example@127.0.0.1:${p}`],
      ['a port with a leading zero', (p) => `127.0.0.1:0${p}`],
      ['the port followed by junk', (p) => `127.0.0.1:${p}.evil.example`],
      ['a host with a path', (p) => `127.0.0.1:${p}/x`]
    ]
    for (const [name, hostOf] of hosts) {
      it(`refuses ${name}: 421, no session`, async () => {
        const before = sessionCount()
        const response = await rawRequest(gateway.url, { headers: { ...mcpHeaders(tokens.victim), host: hostOf(gateway.port) }, body: init })
        expect([400, 421]).toContain(response.status)
        expect(sessionCount()).toBe(before)
      })
    }
    it('an upper-case LOCALHOST is either accepted as localhost or refused, never a 5xx', async () => {
      const response = await rawRequest(gateway.url, { headers: { ...mcpHeaders(tokens.victim), host: `LOCALHOST:${gateway.port}` }, body: init })
      expect([200, 421]).toContain(response.status)
    })
    it('an HTTP/1.0 request without any Host header is refused: 421 (or 400), no session', async () => {
      const before = sessionCount()
      const response = await rawExchange(gateway.port, headOf('/mcp', [`authorization: Bearer ${tokens.victim}`]).replace('HTTP/1.1', 'HTTP/1.0'))
      expect([400, 421]).toContain(response.status)
      expect(sessionCount()).toBe(before)
    })
    it('two Host headers (good then evil) are refused; no session', async () => {
      const before = sessionCount()
      const response = await rawExchange(
        gateway.port,
        headOf('/mcp', [`host: 127.0.0.1:${gateway.port}`, `host: evil.example:${gateway.port}`, `authorization: Bearer ${tokens.victim}`])
      )
      expect([400, 421]).toContain(response.status)
      expect(sessionCount()).toBe(before)
    })
    it('two Host headers (evil then good) are refused; no session', async () => {
      const before = sessionCount()
      const response = await rawExchange(
        gateway.port,
        headOf('/mcp', [`host: evil.example:${gateway.port}`, `host: 127.0.0.1:${gateway.port}`, `authorization: Bearer ${tokens.victim}`])
      )
      expect([400, 421]).toContain(response.status)
      expect(sessionCount()).toBe(before)
    })
    it('an absolute-form request line naming a foreign authority is refused (its authority overrides Host, RFC 9112 §3.2.2)', async () => {
      const before = sessionCount()
      const response = await rawExchange(
        gateway.port,
        headOf(`http://evil.example:${gateway.port}/mcp`, [`host: 127.0.0.1:${gateway.port}`, `authorization: Bearer ${tokens.victim}`])
      )
      expect([400, 404, 421]).toContain(response.status)
      expect(sessionCount()).toBe(before)
    })
  })

  describe('Origin variants (browser pages)', () => {
    const origins: [string, (p: number) => string][] = [
      ['a browser extension', () => 'chrome-extension://abcdefghijklmnop'],
      ['file://', () => 'file://'],
      ['the right host with userinfo', (p) => `http://evil@127.0.0.1:${p}`],
      ['the right host on http with a trailing dot', (p) => `http://127.0.0.1.:${p}`],
      ['0.0.0.0 on the gateway port', (p) => `http://0.0.0.0:${p}`],
      ['an empty Origin', () => '']
    ]
    for (const [name, originOf] of origins) {
      it(`refuses ${name}: 403 (or 400), no session, no CORS headers`, async () => {
        const before = sessionCount()
        const response = await rawRequest(gateway.url, { headers: mcpHeaders(tokens.victim, { origin: originOf(gateway.port) }), body: init })
        if (originOf(gateway.port) === '') expect([200, 400, 403]).toContain(response.status)
        else {
          expect([400, 403]).toContain(response.status)
          expect(sessionCount()).toBe(before)
        }
        expect(Object.keys(response.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
      })
    }
    it("two Origin headers (the gateway's own, then evil) are refused", async () => {
      const before = sessionCount()
      const response = await rawExchange(
        gateway.port,
        headOf('/mcp', [
          `host: 127.0.0.1:${gateway.port}`,
          `origin: http://127.0.0.1:${gateway.port}`,
          'origin: https://evil.example',
          `authorization: Bearer ${tokens.victim}`
        ])
      )
      expect([400, 403]).toContain(response.status)
      expect(sessionCount()).toBe(before)
    })
    it('a CSRF-style simple request (text/plain, no Authorization, Origin null) is refused before anything runs', async () => {
      const before = sessionCount()
      const response = await rawRequest(gateway.url, { headers: { 'content-type': 'text/plain', accept: '*/*', origin: 'null' }, body: init })
      expect([401, 403]).toContain(response.status)
      expect(sessionCount()).toBe(before)
      expect(Object.keys(response.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    })
    it('a simple GET with a cookie and a foreign Origin gets nothing and no CORS headers', async () => {
      const response = await rawRequest(gateway.url, { method: 'GET', headers: { accept: 'text/event-stream', origin: 'https://evil.example', cookie: 'a=b' } })
      expect([401, 403, 405]).toContain(response.status)
      expect(Object.keys(response.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    })
  })

  describe('content-type and encoding games', () => {
    it('text/plain carrying a valid initialize with a valid token is refused (415), no open session', async () => {
      const before = sessionsOpen()
      const response = await rawRequest(gateway.url, { headers: { ...mcpHeaders(tokens.victim), 'content-type': 'text/plain' }, body: init })
      expect([400, 415]).toContain(response.status)
      expect(sessionsOpen()).toBe(before)
    })
    it('application/x-www-form-urlencoded (a form post) is refused, no open session', async () => {
      const before = sessionsOpen()
      const response = await rawRequest(gateway.url, {
        headers: { ...mcpHeaders(tokens.victim), 'content-type': 'application/x-www-form-urlencoded' },
        body: init
      })
      expect([400, 415]).toContain(response.status)
      expect(sessionsOpen()).toBe(before)
    })
    it('a gzip bomb (Content-Encoding: gzip, 100 MiB inflated from ~100 KiB) is never inflated past the 20 MiB limit', async () => {
      const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20))
      const rssBefore = process.memoryUsage().rss
      const response = await rawRequest(gateway.url, { headers: { ...mcpHeaders(tokens.victim), 'content-encoding': 'gzip' }, body: bomb }).catch(
        (e: Error) => ({ status: 0, body: e.message, headers: {} })
      )
      expect([0, 400, 413, 415]).toContain(response.status)
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(150 * 1024 * 1024)
      await stillServes()
    })
    it('a declared Content-Length over 20 MiB is refused at once, without waiting for the body', async () => {
      const started = Date.now()
      const response = await rawExchange(
        gateway.port,
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\nauthorization: Bearer ${tokens.victim}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${25 * 1024 * 1024}\r\n\r\n{`,
        4000
      )
      expect(response.status).toBe(413)
      expect(Date.now() - started).toBeLessThan(3000)
    })
    it('Expect: 100-continue with an oversize Content-Length gets a 413, never a 100 Continue', async () => {
      const response = await rawExchange(
        gateway.port,
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\nauthorization: Bearer ${tokens.victim}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nexpect: 100-continue\r\ncontent-length: ${25 * 1024 * 1024}\r\n\r\n`,
        3000
      )
      expect(response.text).not.toMatch(/^HTTP\/1\.1 100/)
      expect([413, 417]).toContain(response.status)
    })
    it('Content-Length together with Transfer-Encoding (request smuggling) is refused', async () => {
      const body = `${init.length.toString(16)}\r\n${init}\r\n0\r\n\r\n`
      const response = await rawExchange(
        gateway.port,
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\nauthorization: Bearer ${tokens.victim}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 4\r\ntransfer-encoding: chunked\r\n\r\n${body}`
      )
      expect(response.status).toBe(400)
    })
    it('a body that lies about its length (Content-Length smaller than the body) never smuggles a second request', async () => {
      const before = sessionCount()
      const smuggled = `POST /mcp HTTP/1.1\r\nhost: evil.example\r\nauthorization: Bearer ${tokens.victim}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${init.length}\r\n\r\n${init}`
      const response = await rawExchange(
        gateway.port,
        `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}${smuggled}`
      )
      expect(response.text).not.toMatch(/mcp-session-id/i)
      expect(sessionCount()).toBe(before)
    })
  })

  describe('JSON-RPC shapes', () => {
    it('a batch of 10 000 entries is refused quickly (no open session), and the gateway keeps serving', async () => {
      const before = sessionsOpen()
      const batch = JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ ...initializeBody, id: i })))
      const started = Date.now()
      const response = await rawRequest(gateway.url, { headers: mcpHeaders(tokens.victim), body: batch })
      expect(response.status).toBe(400)
      expect(Date.now() - started).toBeLessThan(5000)
      expect(sessionsOpen()).toBe(before)
      await stillServes()
    })
    it('a batch of 10 000 tools/call inside a session is refused; nothing runs or is recorded', async () => {
      const batcher = await connectAgent(gateway.url, tokens.batcher!)
      try {
        const before = host.agents.history.list({ agentId: 'batcher', limit: 500 }).rows.length
        const batch = JSON.stringify(
          Array.from({ length: 10_000 }, (_, i) => ({
            jsonrpc: '2.0',
            id: i + 100,
            method: 'tools/call',
            params: { name: 'write_file', arguments: { path: `b${i}.txt`, content: 'x' } }
          }))
        )
        const response = await rawRequest(gateway.url, {
          headers: mcpHeaders(tokens.batcher, { 'mcp-session-id': batcher.transport.sessionId!, ...protocol }),
          body: batch
        })
        expect(response.status).toBe(400)
        expect(host.agents.history.list({ agentId: 'batcher', limit: 500 }).rows.length).toBe(before)
      } finally {
        await batcher.close()
      }
    })
    it('batches of 99 tools/call cannot run past gateway.rate_per_minute (600): 7 batches = 693 calls, some refused -32029', async () => {
      const batcher = await connectAgent(gateway.url, tokens.batcher!)
      try {
        const headers = mcpHeaders(tokens.batcher, { 'mcp-session-id': batcher.transport.sessionId!, ...protocol })
        const codes: (number | 'ok')[] = []
        for (let round = 0; round < 7; round++) {
          const batch = JSON.stringify(
            Array.from({ length: 99 }, (_, i) => ({
              jsonrpc: '2.0',
              id: round * 1000 + i,
              method: 'tools/call',
              params: { name: 'list_directory', arguments: { path: '.' } }
            }))
          )
          const response = await rawRequest(gateway.url, { headers, body: batch })
          if (response.status !== 200) {
            codes.push(response.status)
            continue
          }
          for (const message of messagesOf(response.body)) codes.push(message.error ? message.error.code : 'ok')
        }
        const ran = codes.filter((c) => c === 'ok').length
        expect(ran).toBeLessThanOrEqual(600)
      } finally {
        await batcher.close()
      }
    }, 120_000)
    it("deeply nested objects in params._meta and in an unknown method's params do not crash the gateway", async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        const deep = `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`
        const headers = mcpHeaders(tokens.victim, { 'mcp-session-id': victim.transport.sessionId!, ...protocol })
        for (const body of [
          `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":"."},"_meta":${deep}}}`,
          `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"list_directory","arguments":{"path":".","deep":${deep}}}}`,
          `{"jsonrpc":"2.0","id":13,"method":"x/y","params":${deep}}`,
          `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`
        ]) {
          const response = await rawRequest(gateway.url, { headers, body })
          expect(response.status).toBeLessThan(500)
        }
      } finally {
        await victim.close()
      }
      await stillServes()
    })
    it('deeply nested arguments to an upstream MCP tool (passed through, recorded) do not crash the gateway or half-record', async () => {
      const agent = await connectAgent(gateway.url, tokens.mcpagent!)
      try {
        const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`
        const headers = mcpHeaders(tokens.mcpagent, { 'mcp-session-id': agent.transport.sessionId!, ...protocol })
        const response = await rawRequest(gateway.url, {
          headers,
          body: `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"up__echo","arguments":{"text":"x","deep":${deep}}}}`
        })
        expect(response.status).toBeLessThan(500)
        const rows = host.agents.history.list({ agentId: 'mcpagent', limit: 500 }).rows
        expect(rows.every((row) => row.finishedAt !== null)).toBe(true)
      } finally {
        await agent.close()
      }
      await stillServes()
    })
    it('a 1 MiB tool name is refused as an unknown tool, unrecorded, without crashing or logging it', async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        const before = host.agents.history.list({ agentId: 'victim', limit: 500 }).rows.length
        const loggedBefore = logged.join('\n').length
        const response = await rawRequest(gateway.url, {
          headers: mcpHeaders(tokens.victim, { 'mcp-session-id': victim.transport.sessionId!, ...protocol }),
          body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'n'.repeat(1024 * 1024), arguments: {} } })
        })
        expect(response.status).toBe(200)
        expect(messagesOf(response.body)[0]!.error?.code).toBe(-32602)
        expect(host.agents.history.list({ agentId: 'victim', limit: 500 }).rows.length).toBe(before)
        expect(logged.join('\n').length - loggedBefore).toBeLessThan(64 * 1024)
      } finally {
        await victim.close()
      }
    })
    it('the unknown-tool error does not reflect an attacker-sized tool name (1 MiB name -> a bounded error)', async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        const response = await rawRequest(gateway.url, {
          headers: mcpHeaders(tokens.victim, { 'mcp-session-id': victim.transport.sessionId!, ...protocol }),
          body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'n'.repeat(1024 * 1024), arguments: {} } })
        })
        // The name is quoted cut to 128 characters in the message and in data.
        expect(response.body.length).toBeLessThan(64 * 1024)
      } finally {
        await victim.close()
      }
    })
  })

  describe('tools the agent does not have', () => {
    const names = [
      'persist_skill',
      'run_skill',
      'run_command',
      'run_code',
      'sqlite_query',
      'browse',
      'vector_upsert',
      'vector_search',
      'server__x',
      'up__echo',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
      'write_file ',
      ' write_file',
      'WRITE_FILE',
      'write_file\u0000',
      'wrіte_file' /* Cyrillic i */,
      '../write_file'
    ]
    for (const name of names) {
      it(`tools/call ${JSON.stringify(name)} for a files-only agent is an unknown tool (-32602), nothing recorded`, async () => {
        const victim = await connectAgent(gateway.url, tokens.victim!)
        try {
          const before = host.agents.history.list({ agentId: 'victim', limit: 500 }).rows.length
          const error = await victim.client.callTool({ name, arguments: { path: 'x.txt', content: 'x', command: 'id', name: 'x' } }).then(
            () => undefined,
            (e: unknown) => e
          )
          expect(error).toBeInstanceOf(McpError)
          expect((error as McpError).code).toBe(-32602)
          expect(host.agents.history.list({ agentId: 'victim', limit: 500 }).rows.length).toBe(before)
          expect(existsSync(join(dir.path, 'workspaces', 'victim', 'x.txt'))).toBe(false)
        } finally {
          await victim.close()
        }
      })
    }
    it('an MCP agent calling <server>__<name> for a name its upstream did not list gets -32602, unrecorded, nothing forwarded', async () => {
      const agent = await connectAgent(gateway.url, tokens.mcpagent!)
      const forwarded: string[] = []
      try {
        const listed = (await agent.client.listTools()).tools.map((t) => t.name)
        expect(listed).toEqual(expect.arrayContaining(['up__echo', 'up__wait']))
        for (const name of [
          'up__nonexistent',
          'other__echo',
          'up__echo__x',
          'UP__echo',
          'up__',
          '__echo',
          'up___echo',
          'up__constructor',
          'up__ECHO',
          'up__hidden_admin_tool'
        ]) {
          const before = host.agents.history.list({ agentId: 'mcpagent', limit: 500 }).rows.length
          const error = await agent.client.callTool({ name, arguments: { text: 'x' } }).then(
            () => undefined,
            (e: unknown) => e
          )
          const recorded = host.agents.history.list({ agentId: 'mcpagent', limit: 500 }).rows.length > before
          if (!(error instanceof McpError) || error.code !== -32602 || recorded) forwarded.push(name)
        }
      } finally {
        await agent.close()
      }
      // Only names the upstream listed are forwarded; the rest are unknown tools, unrecorded.
      expect(forwarded).toEqual([])
    })
    it('after the operator removes a capability, an open session no longer lists or runs its tools', async () => {
      const agent = await connectAgent(gateway.url, tokens.shrinking!)
      try {
        expect((await callTool(agent.client, 'write_file', { path: 'before.txt', content: 'ok' })).structuredContent).toMatchObject({ ok: true })
        host.agents.service.update('shrinking', { profile: { capabilities: ['sqlite'], ask: 'never' } })
        // A new session sees the narrowed profile at once...
        const fresh = await connectAgent(gateway.url, tokens.shrinking!)
        expect((await fresh.client.listTools()).tools.map((t) => t.name)).not.toContain('write_file')
        await fresh.close()
        // ...and so must the one already open.
        expect((await agent.client.listTools()).tools.map((t) => t.name)).not.toContain('write_file')
        await agent.client.callTool({ name: 'write_file', arguments: { path: 'after.txt', content: 'still writing' } }).catch(() => undefined)
        expect(existsSync(join(dir.path, 'workspaces', 'shrinking', 'after.txt'))).toBe(false)
      } finally {
        await agent.close().catch(() => undefined)
      }
    })
    it("after the operator tightens ask to 'always', an open session's next write waits for the operator", async () => {
      const { token } = host.agents.service.create('tightened', { profile: filesOnly })
      const agent = await connectAgent(gateway.url, token)
      try {
        expect((await callTool(agent.client, 'write_file', { path: 'one.txt', content: '1' })).structuredContent).toMatchObject({ ok: true })
        host.agents.service.update('tightened', { profile: { capabilities: ['files'], ask: 'always', approvalTimeoutSeconds: 2 } })
        const second = await callTool(agent.client, 'write_file', { path: 'two.txt', content: '2' })
        expect(second.structuredContent.ok).toBe(false)
        expect(existsSync(join(dir.path, 'workspaces', 'tightened', 'two.txt'))).toBe(false)
      } finally {
        await agent.close()
      }
    })
    it("after the operator lowers limits.diskMb, an open session's write over the new quota is refused", async () => {
      const { token } = host.agents.service.create('quota', { profile: filesOnly })
      const agent = await connectAgent(gateway.url, token)
      try {
        expect((await callTool(agent.client, 'write_file', { path: 'small.txt', content: 'x' })).structuredContent).toMatchObject({ ok: true })
        host.agents.service.update('quota', { profile: { ...filesOnly, limits: { diskMb: 1 } } })
        const big = await callTool(agent.client, 'write_file', { path: 'big.txt', content: 'y'.repeat(3 * 1024 * 1024) })
        expect(big.structuredContent.ok).toBe(false)
      } finally {
        await agent.close()
      }
    })
    it('a refused initialize (wrong Content-Type, an over-limit batch) records no session (README: refused "with ... nothing recorded")', async () => {
      // A refused initialize (wrong Content-Type, an over-limit batch) must leave no session behind (README: "nothing recorded").
      const before = host.store.sessions.listByAgent('victim').length
      await rawRequest(gateway.url, { headers: { ...mcpHeaders(tokens.victim), 'content-type': 'text/plain' }, body: init })
      await rawRequest(gateway.url, {
        headers: mcpHeaders(tokens.victim),
        body: JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ ...initializeBody, id: i })))
      })
      expect(host.store.sessions.listByAgent('victim').length).toBe(before)
    })
  })

  describe('sessions across agents', () => {
    it('an agent removed and re-created with the same id: the old session id is dead for the new token, and the old token is 401', async () => {
      const old = await connectAgent(gateway.url, tokens.reborn!)
      const sessionId = old.transport.sessionId!
      expect((await callTool(old.client, 'write_file', { path: 'old.txt', content: 'old life' })).structuredContent).toMatchObject({ ok: true })
      host.agents.service.remove('reborn')
      const { token } = host.agents.service.create('reborn', { profile: filesOnly })
      const reuse = await rawRequest(gateway.url, {
        headers: mcpHeaders(token, { 'mcp-session-id': sessionId, ...protocol }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'old.txt' } } })
      })
      expect(reuse.status).toBe(404)
      expect(reuse.body).not.toMatch(/old life/)
      const oldToken = await rawRequest(gateway.url, {
        headers: mcpHeaders(tokens.reborn, { 'mcp-session-id': sessionId, ...protocol }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' })
      })
      expect(oldToken.status).toBe(401)
      await old.close().catch(() => undefined)
    })
    it("two Mcp-Session-Id headers (victim's, then own) never reach the victim's session", async () => {
      const [victim, attacker] = [await connectAgent(gateway.url, tokens.victim!), await connectAgent(gateway.url, tokens.attacker!)]
      try {
        const call = JSON.stringify({
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'write_file', arguments: { path: 'dup-session.txt', content: 'x' } }
        })
        for (const order of [
          [victim.transport.sessionId!, attacker.transport.sessionId!],
          [attacker.transport.sessionId!, victim.transport.sessionId!]
        ]) {
          await requestWithHeaders(gateway.url, { ...mcpHeaders(tokens.attacker, protocol), 'mcp-session-id': order }, call)
        }
        expect(existsSync(join(dir.path, 'workspaces', 'victim', 'dup-session.txt'))).toBe(false)
        expect(host.agents.history.list({ agentId: 'victim', limit: 500 }).rows.filter((r) => r.sessionId === victim.transport.sessionId).length).toBe(0)
      } finally {
        await victim.close()
        await attacker.close()
      }
    })
    it("the victim's session id upper-cased or padded is not accepted with the attacker's token", async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        const id = victim.transport.sessionId!
        for (const variant of [id.toUpperCase(), ` ${id}`, `${id} `, `${id},${id}`]) {
          const response = await rawRequest(gateway.url, {
            headers: mcpHeaders(tokens.attacker, { 'mcp-session-id': variant, ...protocol }),
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
          })
          expect([400, 404]).toContain(response.status)
        }
      } finally {
        await victim.close()
      }
    })
    it("DELETE or a GET stream on the victim's session without a token, from a foreign Origin or Origin null, or with a foreign Host: refused, the session stays open", async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        const id = victim.transport.sessionId!
        const attempts: Record<string, string>[] = [
          { 'mcp-session-id': id },
          { ...mcpHeaders(tokens.victim, { 'mcp-session-id': id }), origin: 'https://evil.example' },
          { ...mcpHeaders(tokens.victim, { 'mcp-session-id': id }), host: `evil.example:${gateway.port}` },
          { ...mcpHeaders(tokens.victim, { 'mcp-session-id': id }), origin: 'null' }
        ]
        for (const method of ['DELETE', 'GET']) {
          for (const headers of attempts) {
            const response = await rawRequest(gateway.url, { method, headers: { accept: 'text/event-stream', ...headers } })
            expect([401, 403, 421]).toContain(response.status)
          }
        }
        expect((await victim.client.listTools()).tools.length).toBeGreaterThan(0)
        expect(host.store.sessions.listByAgent('victim').find((s) => s.id === id)?.endedAt).toBeNull()
      } finally {
        await victim.close()
      }
    })
    it("a GET stream opened on one's own session does not carry another agent's messages", async () => {
      const [victim, attacker] = [await connectAgent(gateway.url, tokens.victim!), await connectAgent(gateway.url, tokens.attacker!)]
      const received: string[] = []
      const target = new URL(gateway.url)
      const req = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'GET',
          headers: { accept: 'text/event-stream', authorization: `Bearer ${tokens.attacker}`, 'mcp-session-id': attacker.transport.sessionId!, ...protocol }
        },
        (response) => {
          response.setEncoding('utf8')
          response.on('data', (chunk) => received.push(chunk))
        }
      )
      req.on('error', () => undefined)
      req.end()
      try {
        await sleep(300)
        await callTool(victim.client, 'write_file', { path: 'stream-secret.txt', content: 'victim stream secret' })
        await callTool(victim.client, 'read_file', { path: 'stream-secret.txt' })
        await sleep(300)
        expect(received.join('')).not.toMatch(/victim stream secret/)
      } finally {
        req.destroy()
        await victim.close()
        await attacker.close()
      }
    })
    it("notifications/cancelled naming another session's request id does not cancel the victim's waiting call", async () => {
      const [victim, attacker] = [await connectAgent(gateway.url, tokens.slowb!), await connectAgent(gateway.url, tokens.slowa!)]
      try {
        // The victim's write waits for the operator (ask: always); its JSON-RPC id is small and guessable.
        const pending = callTool(victim.client, 'write_file', { path: 'waiting.txt', content: 'victim' }).then(
          (r) => r,
          (e: unknown) => e
        )
        await expect.poll(() => host.approvals.list().filter((a) => a.agentId === 'slowb').length, { timeout: 10_000 }).toBe(1)
        const headers = mcpHeaders(tokens.slowa, { 'mcp-session-id': attacker.transport.sessionId!, ...protocol })
        for (let id = 0; id < 10; id++) {
          await rawRequest(gateway.url, {
            headers,
            body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'hijack' } })
          })
          await rawRequest(gateway.url, {
            headers,
            body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: String(id), reason: 'hijack' } })
          })
        }
        await sleep(500)
        const item = host.approvals.list().find((a) => a.agentId === 'slowb')
        expect(item).toBeDefined()
        host.approvals.decide({ id: item!.id, decision: 'approve' })
        const result = (await pending) as { structuredContent?: { ok: boolean } }
        expect(result.structuredContent).toMatchObject({ ok: true })
      } finally {
        await victim.close()
        await attacker.close()
      }
    })
    it('max_concurrent_calls (16) holds across many sessions of one agent: 12 sessions each with two waiting calls', async () => {
      // 12 sessions, not 24: gateway.max_sessions_per_agent (16) refuses more; the calls are still 24.
      const sessions = await Promise.all(Array.from({ length: 12 }, () => connectAgent(gateway.url, tokens.slowa!)))
      try {
        const outcomes = [...sessions, ...sessions].map((s, i) =>
          callTool(s.client, 'write_file', { path: `c${i}.txt`, content: 'x' }).then(
            () => 'done' as const,
            (e: McpError) => e.code
          )
        )
        await sleep(3000)
        const waiting = host.approvals.list().filter((a) => a.agentId === 'slowa').length
        expect(waiting).toBeLessThanOrEqual(16)
        for (const item of host.approvals.list().filter((a) => a.agentId === 'slowa')) host.approvals.decide({ id: item.id, decision: 'deny', reason: 'test' })
        const codes = await Promise.all(outcomes)
        expect(codes.filter((c) => c === -32020).length).toBeGreaterThanOrEqual(8)
      } finally {
        await Promise.all(sessions.map((s) => s.close().catch(() => undefined)))
      }
    }, 60_000)
    it('one agent cannot open sessions without bound: 700 initializes in a minute are not all accepted', async () => {
      const before = host.store.sessions.listByAgent('flooder').length
      const statuses: number[] = []
      for (let wave = 0; wave < 14; wave++) {
        const responses = await Promise.all(Array.from({ length: 50 }, () => rawRequest(gateway.url, { headers: mcpHeaders(tokens.flooder), body: init })))
        statuses.push(...responses.map((r) => r.status))
      }
      const opened = host.store.sessions.listByAgent('flooder').length - before
      expect(opened).toBeLessThan(700)
      expect(statuses.filter((s) => s === 200).length).toBeLessThan(700)
      await stillServes()
    }, 120_000)
  })

  describe('what an agent can learn about another', () => {
    it('a live session id of another agent answers exactly like a random one (no oracle that it exists)', async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        const ask = (id: string) =>
          rawRequest(gateway.url, {
            headers: mcpHeaders(tokens.attacker, { 'mcp-session-id': id, ...protocol }),
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
          })
        const [real, fake] = [await ask(victim.transport.sessionId!), await ask('6f1c1f4e-0000-4000-8000-000000000000')]
        expect([real.status, real.body.replace(victim.transport.sessionId!, 'ID')]).toEqual([
          fake.status,
          fake.body.replace('6f1c1f4e-0000-4000-8000-000000000000', 'ID')
        ])
      } finally {
        await victim.close()
      }
    })
    it("reading outside the workspace fails the same way whether or not the other agent's file exists", async () => {
      const [victim, attacker] = [await connectAgent(gateway.url, tokens.victim!), await connectAgent(gateway.url, tokens.attacker!)]
      try {
        await callTool(victim.client, 'write_file', { path: 'exists.txt', content: 'secret' })
        const codeOf = async (path: string) => (await callTool(attacker.client, 'read_file', { path })).structuredContent.error?.code
        for (const [there, notThere] of [
          ['../victim/exists.txt', '../victim/nope.txt'],
          [join(dir.path, 'workspaces', 'victim', 'exists.txt'), join(dir.path, 'workspaces', 'victim', 'nope.txt')],
          ['../victim', '../nobody-here']
        ]) {
          expect(await codeOf(there!)).toBe(await codeOf(notThere!))
        }
      } finally {
        await victim.close()
        await attacker.close()
      }
    })
    it('the initialize answer and tools/list of one agent never name another agent or its workspace', async () => {
      const response = await rawRequest(gateway.url, { headers: mcpHeaders(tokens.attacker), body: init })
      expect(response.status).toBe(200)
      const sessionId = response.headers['mcp-session-id'] as string
      const list = await rawRequest(gateway.url, {
        headers: mcpHeaders(tokens.attacker, { 'mcp-session-id': sessionId, ...protocol }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
      })
      for (const body of [response.body, list.body]) {
        expect(body).not.toMatch(/victim|mcpagent|slowa|slowb|batcher/)
        expect(body).not.toContain(join(dir.path, 'workspaces'))
      }
      await rawRequest(gateway.url, { method: 'DELETE', headers: mcpHeaders(tokens.attacker, { 'mcp-session-id': sessionId, ...protocol }) })
    })
  })

  describe('CPU: catastrophic regular expressions', () => {
    it('16 concurrent catastrophic regex searches (the per-agent maximum) do not stall another agent', async () => {
      const { token } = host.agents.service.create('redos', { profile: filesOnly })
      const agent = await connectAgent(gateway.url, token, { maxSockets: 32 })
      try {
        await callTool(agent.client, 'write_file', { path: 'evil.txt', content: `${'a'.repeat(40)}!\n`.repeat(50) })
        const searches = Array.from({ length: 16 }, () => callTool(agent.client, 'search_files', { pattern: '^(a+)+$', regex: true }).catch((e: unknown) => e))
        await sleep(1000)
        const started = Date.now()
        await stillServes()
        const latency = Date.now() - started
        expect(latency).toBeLessThan(3000)
        // Each search is stopped at its deadline (10 s), reported truncated, never a match.
        const results = (await Promise.all(searches)) as { structuredContent?: { data?: { matches?: unknown[] } } }[]
        for (const result of results) expect(result.structuredContent?.data?.matches ?? []).toEqual([])
      } finally {
        await agent.close()
      }
    }, 60_000)
    it('a glob with nested braces is refused or bounded: it does not stall the gateway', async () => {
      const { token } = host.agents.service.create('braces', { profile: filesOnly })
      const agent = await connectAgent(gateway.url, token)
      try {
        await callTool(agent.client, 'write_file', { path: 'a.txt', content: 'x' })
        const glob = '{a,b}'.repeat(40)
        const started = Date.now()
        const result = await Promise.race([
          callTool(agent.client, 'search_files', { pattern: 'x', glob: `${glob}{1..1000000}` }),
          sleep(15_000).then(() => 'timeout')
        ])
        expect(result).not.toBe('timeout')
        expect(Date.now() - started).toBeLessThan(15_000)
      } finally {
        await agent.close()
      }
      await stillServes()
    }, 30_000)
  })

  describe('slow clients', () => {
    it('200 slowloris connections (headers never finished) do not stop another agent from being served', async () => {
      const sockets: Socket[] = []
      try {
        for (let i = 0; i < 200; i++) {
          const socket = netConnect(gateway.port, '127.0.0.1')
          socket.on('error', () => undefined)
          socket.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\nx-slow: `)
          sockets.push(socket)
        }
        await sleep(500)
        const started = Date.now()
        await stillServes()
        expect(Date.now() - started).toBeLessThan(5000)
      } finally {
        for (const socket of sockets) socket.destroy()
      }
    })
    it("authenticated clients dripping a body one byte a second do not stop the same agent's other session", async () => {
      const sockets: Socket[] = []
      const timers: NodeJS.Timeout[] = []
      try {
        for (let i = 0; i < 20; i++) {
          const socket = netConnect(gateway.port, '127.0.0.1')
          socket.on('error', () => undefined)
          socket.write(
            `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\nauthorization: Bearer ${tokens.victim}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100000\r\n\r\n{`
          )
          timers.push(setInterval(() => socket.write(' '), 1000))
          sockets.push(socket)
        }
        await sleep(1500)
        const started = Date.now()
        await stillServes()
        expect(Date.now() - started).toBeLessThan(5000)
      } finally {
        for (const timer of timers) clearInterval(timer)
        for (const socket of sockets) socket.destroy()
      }
    })
  })

  describe('unauthenticated surface', () => {
    const paths = [
      '/',
      '/health',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
      '/mcp/',
      '/MCP',
      '//mcp',
      '/mcp/../mcp',
      '/mcp%2F',
      '/api',
      '/ws',
      '/events',
      '/sse',
      '/messages'
    ]
    for (const path of paths) {
      it(`GET and POST ${path} without a token reveal nothing and send no CORS headers`, async () => {
        for (const method of ['GET', 'POST']) {
          const response = await rawExchange(
            gateway.port,
            `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\norigin: http://127.0.0.1:${gateway.port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${init.length}\r\nconnection: close\r\n\r\n${init}`
          )
          expect(response.status).toBeGreaterThanOrEqual(400)
          expect(response.status).toBeLessThan(500)
          expect(response.text).not.toMatch(/access-control-allow/i)
          expect(response.text).not.toMatch(/victim|attacker|alk_/)
        }
      })
    }
    it('TRACE echoes nothing (no cross-site tracing of the Authorization header)', async () => {
      const response = await rawExchange(
        gateway.port,
        `TRACE /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\nauthorization: Bearer ${tokens.victim}\r\nconnection: close\r\n\r\n`
      )
      expect(response.text).not.toContain(tokens.victim!)
      expect(response.status).toBeGreaterThanOrEqual(400)
    })
    it('no refusal ever carries the presented token back', async () => {
      const t = tokens.victim!
      const responses = [
        await rawRequest(gateway.url, { headers: { ...mcpHeaders(t), host: `evil.example:${gateway.port}` }, body: init }),
        await rawRequest(gateway.url, { headers: mcpHeaders(t, { origin: 'https://evil.example' }), body: init }),
        await rawRequest(gateway.url, {
          headers: mcpHeaders(t, { 'mcp-session-id': 'nope', ...protocol }),
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
        }),
        await rawRequest(gateway.url, { headers: { ...mcpHeaders(t), 'content-type': 'text/plain' }, body: init }),
        await rawRequest(gateway.url, { headers: mcpHeaders(`${t}x`), body: init })
      ]
      for (const response of responses) {
        expect(response.body).not.toContain(t)
        expect(JSON.stringify(response.headers)).not.toContain(t)
      }
    })
  })

  describe('hostile files an agent leaves for the host', () => {
    it('.exec_history planted as a symlink to a host file: the host never writes through it', async () => {
      const { token } = host.agents.service.create('planter', { profile: filesOnly })
      const workspace = join(dir.path, 'workspaces', 'planter')
      const outside = join(dir.path, 'outside-target.txt')
      writeFileSync(outside, 'host file\n')
      execFileSync('rm', ['-f', join(workspace, '.exec_history')])
      symlinkSync(outside, join(workspace, '.exec_history'))
      const agent = await connectAgent(gateway.url, token)
      try {
        expect((await callTool(agent.client, 'write_file', { path: 'a.txt', content: 'a' })).structuredContent).toMatchObject({ ok: true })
      } finally {
        await agent.close()
      }
      expect(readFileSync(outside, 'utf8')).toBe('host file\n')
      expect(lstatSync(join(workspace, '.exec_history')).isSymbolicLink()).toBe(true)
    })
    it('.exec_history planted as a FIFO: the call ends and other agents are still served (the host never blocks on it)', async () => {
      const { token } = host.agents.service.create('fifo', { profile: filesOnly })
      const workspace = join(dir.path, 'workspaces', 'fifo')
      execFileSync('rm', ['-f', join(workspace, '.exec_history')])
      execFileSync('mkfifo', [join(workspace, '.exec_history')])
      const agent = await connectAgent(gateway.url, token)
      try {
        const started = Date.now()
        expect((await callTool(agent.client, 'write_file', { path: 'a.txt', content: 'a' })).structuredContent).toMatchObject({ ok: true })
        expect(Date.now() - started).toBeLessThan(5000)
      } finally {
        await agent.close()
      }
      await stillServes()
    })
  })

  describe('token leakage at rest', () => {
    it('after everything above, no raw agent token is in any file of the home (db, WAL, logs, workspaces) nor in logged errors', async () => {
      await sleep(300)
      const leaks: string[] = []
      for (const file of filesUnder(dir.path)) {
        const bytes = readFileSync(file)
        for (const [agent, token] of Object.entries(tokens)) if (bytes.includes(token)) leaks.push(`${agent} in ${file}`)
      }
      expect(leaks).toEqual([])
      for (const token of Object.values(tokens)) expect(logged.join('\n')).not.toContain(token)
    })
  })
})

// ---------------------------------------------------------------------------------------------
// Real sandboxes: what a compromised agent with a shell can hold on the host.

/** Live (non-zombie) processes descending from `root` (this test process by default). */
/** The count of descendants once it holds still (two samples 200 ms apart agree; at most 10 s). */
async function settledDescendants(): Promise<number> {
  let last = descendantsOf().length
  for (let attempt = 0; attempt < 50; attempt++) {
    await sleep(200)
    const now = descendantsOf().length
    if (now === last) return now
    last = now
  }
  return last
}

function descendantsOf(root = process.pid): { pid: number; cmdline: string }[] {
  const parents = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] !== 'Z') parents.set(Number(entry), Number(fields[1]))
    } catch {
      // gone
    }
  }
  const out: { pid: number; cmdline: string }[] = []
  for (const pid of parents.keys()) {
    let parent = parents.get(pid)
    for (let depth = 0; parent && depth < 64; depth++) {
      if (parent === root) {
        let cmdline = ''
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
        } catch {
          // gone
        }
        out.push({ pid, cmdline })
        break
      }
      parent = parents.get(parent)
    }
  }
  return out
}

const haveBwrap = existsSync('/usr/bin/bwrap') || existsSync('/bin/bwrap')

describe.skipIf(!haveBwrap)("red team: a shell agent and the host's processes (bubblewrap)", { timeout: 120_000 }, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let gateway: AgentGateway
  const tokens: Record<string, string> = {}
  const shell = { capabilities: ['files' as const, 'shell' as const], providers: ['bubblewrap' as const], ask: 'never' as const }

  beforeAll(async () => {
    dir = makeTempDir('airlock-redteam-bwrap-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    for (const id of ['hoarder', 'sleeper', 'closer']) tokens[id] = host.agents.service.create(id, { profile: shell }).token
    gateway = await startAgentGateway({ deps: gatewayDeps(host), port: 0, logError: () => undefined })
  })
  afterAll(async () => {
    await gateway?.close()
    await host?.dispose()
    dir?.remove()
  })

  it("the agent token is not in a sandboxed command's environment or arguments", async () => {
    const agent = await connectAgent(gateway.url, tokens.sleeper!)
    try {
      const result = await callTool(agent.client, 'run_command', {
        command: 'env; cat /proc/self/cmdline; cat /proc/1/cmdline; cat /proc/1/environ 2>/dev/null | tr "\\0" "\\n"'
      })
      expect(result.structuredContent).toMatchObject({ ok: true })
      expect(JSON.stringify(result)).not.toContain(tokens.sleeper!)
      expect(JSON.stringify(result)).not.toMatch(/alk_[A-Za-z0-9_-]{20}/)
    } finally {
      await agent.transport.terminateSession().catch(() => undefined)
      await agent.close()
    }
  })

  it('DELETE of a session releases its warm shell processes', async () => {
    // The previous test's session ended just now: its sandboxes may still be on their way out.
    const before = await settledDescendants()
    const agent = await connectAgent(gateway.url, tokens.closer!)
    expect((await callTool(agent.client, 'run_command', { command: 'true' })).structuredContent).toMatchObject({ ok: true })
    expect(descendantsOf().length).toBeGreaterThan(before)
    await agent.transport.terminateSession()
    await agent.close()
    await expect.poll(() => descendantsOf().length, { timeout: 10_000 }).toBeLessThanOrEqual(before)
  })

  it('one agent cannot hold an unbounded number of warm sandboxes: 40 sessions that each ran one command and went quiet', async () => {
    const before = descendantsOf().length
    const sessions: Awaited<ReturnType<typeof connectAgent>>[] = []
    try {
      for (let i = 0; i < 40; i++) {
        const agent = await connectAgent(gateway.url, tokens.hoarder!)
        sessions.push(agent)
        await callTool(agent.client, 'run_command', { command: 'true' })
      }
      await sleep(500)
      const held = descendantsOf().length - before
      // Found: two host processes (bwrap + its shell) per session, for as long as the session is idle
      // (gateway.idle_timeout_seconds, 1800 s by default), with no cap on the number of sessions.
      expect(held).toBeLessThanOrEqual(2 * 16)
    } finally {
      for (const agent of sessions) await agent.transport.terminateSession().catch(() => undefined)
      for (const agent of sessions) await agent.close().catch(() => undefined)
    }
  })

  it('disabling an agent stops its running command at once, and its sandbox processes go', async () => {
    const before = descendantsOf().length
    const agent = await connectAgent(gateway.url, tokens.sleeper!)
    const running = callTool(agent.client, 'run_command', { command: 'sleep 60; echo finished' }).then(
      (r) => r,
      (e: unknown) => e
    )
    await sleep(1500)
    const started = Date.now()
    host.agents.service.disable('sleeper')
    try {
      const outcome = (await running) as { structuredContent?: { ok: boolean; data?: { stdout?: string } } }
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(outcome.structuredContent?.ok).toBe(false)
      expect(outcome.structuredContent?.data?.stdout ?? '').not.toContain('finished')
      await expect.poll(() => descendantsOf().length, { timeout: 10_000 }).toBeLessThanOrEqual(before)
    } finally {
      host.agents.service.enable('sleeper')
      await agent.close().catch(() => undefined)
    }
  }, 90_000)
})

// ---------------------------------------------------------------------------------------------
// The real CLI: `airlock serve`, `airlock agent ...` from another process, `airlock mcp-stdio`.

describe('red team: airlock serve, the CLI and mcp-stdio as real processes', { timeout: 120_000 }, () => {
  let dir: ReturnType<typeof makeTempDir>
  let home: string
  let served: Awaited<ReturnType<typeof startServeWithGateway>>
  let gatewayUrl: string
  let gatewayPort: number
  let consoleUrl: URL
  let stdout = ''
  const tokens: Record<string, string> = {}
  const secret = 'ghp_REDTEAM_UPSTREAM_SECRET_42'

  const createAgent = (id: string, profile: Record<string, unknown>) => {
    const file = join(dir.path, `${id}.json`)
    writeFileSync(file, JSON.stringify(profile))
    const created = runAirlock(['agent', 'create', id, '--json', '--profile', file, '--home', home])
    expect(created.code).toBe(0)
    tokens[id] = (JSON.parse(created.stdout) as { token: string }).token
  }
  /** A stdio MCP client of `airlock mcp-stdio` for one agent, its token in the environment. */
  const stdioClient = async (agentId: string) => {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [airlockBin, 'mcp-stdio', '--agent', agentId, '--home', home],
      env: { PATH: process.env.PATH ?? '', AIRLOCK_TOKEN: tokens[agentId]! },
      stderr: 'pipe'
    })
    let stderr = ''
    transport.stderr?.on('data', (chunk) => (stderr += chunk))
    const client = new Client({ name: 'redteam-stdio', version: '1.0.0' })
    await client.connect(transport)
    return { client, transport, stderr: () => stderr, close: () => client.close() }
  }
  /** Runs `airlock mcp-stdio` on a home, sends it an initialize and a tools/list, then ends stdin. */
  const bridgeOnce = (bridgeHome: string, token: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [airlockBin, 'mcp-stdio', '--agent', 'coder', '--home', bridgeHome], {
        env: { PATH: process.env.PATH ?? '', AIRLOCK_TOKEN: token },
        stdio: ['pipe', 'pipe', 'pipe']
      })
      let out = ''
      let err = ''
      child.stdout!.on('data', (c) => (out += c))
      child.stderr!.on('data', (c) => (err += c))
      child.stdin!.on('error', () => undefined)
      child.stdin!.write(`${JSON.stringify(initializeBody)}\n`)
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`)
      const timer = setTimeout(() => child.stdin!.end(), 2000)
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      child.once('close', (code) => {
        clearTimeout(timer)
        clearTimeout(killer)
        resolve({ code, stdout: out, stderr: err })
      })
    })
  /** A loopback HTTP server that records every request's headers (an impostor on a port). */
  const impostor = async (port = 0) => {
    const seen: IncomingHttpHeaders[] = []
    const server: Server = createHttpServer((request, response) => {
      seen.push(request.headers)
      request.resume()
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}')
    })
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve))
    return {
      port: (server.address() as { port: number }).port,
      seen,
      close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))
    }
  }

  beforeAll(async () => {
    dir = makeTempDir('airlock-redteam-cli-', { outsideTmp: true })
    home = join(dir.path, 'home')
    createAgent('coder', { capabilities: ['files'], ask: 'never' })
    createAgent('asker', { capabilities: ['files'], ask: 'always', approvalTimeoutSeconds: 120 })
    createAgent('cut', { capabilities: ['files'], ask: 'never' })
    createAgent('removed', { capabilities: ['files'], ask: 'never' })
    createAgent('withsecret', {
      capabilities: ['files', 'mcp'],
      ask: 'never',
      mcpServers: [{ name: 'gh', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${secret}` } }]
    })
    served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home])
    served.child.stdout!.on('data', (chunk) => (stdout += chunk))
    stdout += `${served.consoleLine}\n${served.gatewayLine}\n`
    const match = /^Agent gateway: (http:\/\/127\.0\.0\.1:(\d+)\/mcp)$/.exec(served.gatewayLine)!
    gatewayUrl = match[1]!
    gatewayPort = Number(match[2])
    consoleUrl = new URL(/^Airlock console: (\S+)$/.exec(served.consoleLine)![1]!)
  })
  afterAll(async () => {
    await served?.stop()
    dir?.remove()
  })

  it("`airlock agent disable` run from another process cuts off the agent's open session at once", async () => {
    const agent = await connectAgent(gatewayUrl, tokens.cut!)
    try {
      expect((await callTool(agent.client, 'write_file', { path: 'a.txt', content: 'a' })).structuredContent).toMatchObject({ ok: true })
      expect(runAirlock(['agent', 'disable', 'cut', '--home', home]).code).toBe(0)
      const outcome = await callTool(agent.client, 'write_file', { path: 'after-disable.txt', content: 'b' }).then(
        () => 'ran',
        (e: Error) => e.message
      )
      expect(outcome).not.toBe('ran')
      expect(existsSync(join(home, 'workspaces', 'cut', 'after-disable.txt'))).toBe(false)
    } finally {
      runAirlock(['agent', 'enable', 'cut', '--home', home])
      await agent.close().catch(() => undefined)
    }
  })

  it('`airlock agent rm` run from another process ends the open session: its next call neither runs nor writes', async () => {
    const agent = await connectAgent(gatewayUrl, tokens.removed!)
    try {
      expect((await callTool(agent.client, 'list_directory', { path: '.' })).structuredContent).toMatchObject({ ok: true })
      expect(runAirlock(['agent', 'rm', 'removed', '--home', home]).code).toBe(0)
      const outcome = await callTool(agent.client, 'write_file', { path: 'ghost.txt', content: 'b' }).then(
        (r) => (r.structuredContent.ok ? 'ran' : 'refused'),
        (e: Error) => e.message
      )
      expect(outcome).not.toBe('ran')
      expect(existsSync(join(home, 'workspaces', 'removed', 'ghost.txt'))).toBe(false)
    } finally {
      await agent.close().catch(() => undefined)
    }
  })

  it('airlock.db (and its -wal/-shm) are not readable by other local users: it holds upstream secrets and all history', async () => {
    const files = ['airlock.db', 'airlock.db-wal', 'airlock.db-shm'].map((f) => join(home, f)).filter((f) => existsSync(f))
    expect(files.length).toBeGreaterThan(0)
    const dbBytes = Buffer.concat(files.map((f) => readFileSync(f)))
    // The secret is what another user would get (stored so the upstream can be called).
    const holdsSecret = dbBytes.includes(secret)
    const readable = files.filter((f) => (statSync(f).mode & 0o004) !== 0)
    if (process.getuid?.() === 0) {
      // Prove it as a real other user (nobody) when the tests run as root.
      let leakedToNobody = ''
      try {
        leakedToNobody = execFileSync('cat', files, { uid: 65534, gid: 65534, encoding: 'latin1', stdio: ['ignore', 'pipe', 'ignore'] })
      } catch (error) {
        leakedToNobody = String((error as { stdout?: string }).stdout ?? '')
      }
      expect({ holdsSecret, nobodyReadsSecret: leakedToNobody.includes(secret) }).toEqual({ holdsSecret, nobodyReadsSecret: false })
    }
    expect(readable).toEqual([])
  })

  it('a console URL or console WebSocket never accepts an agent token (an agent cannot approve its own calls)', async () => {
    const base = `http://127.0.0.1:${consoleUrl.port}`
    for (const attempt of <{ path: string; headers: Record<string, string> }[]>[
      { path: `/?token=${tokens.coder}`, headers: {} },
      { path: '/', headers: { authorization: `Bearer ${tokens.coder}` } },
      { path: '/', headers: { cookie: `airlock_token=${tokens.coder}` } }
    ]) {
      const response = await rawRequest(`${base}${attempt.path}`, { method: 'GET', headers: attempt.headers })
      expect(response.status).toBe(401)
    }
    const upgrade = await rawExchange(
      Number(consoleUrl.port),
      `GET /ws?token=${tokens.coder} HTTP/1.1\r\nhost: 127.0.0.1:${consoleUrl.port}\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n`,
      3000
    )
    expect(upgrade.status).not.toBe(101)
  })

  it('a file name with terminal escapes, C1 controls or bidi overrides never reaches the queue: refused at the call, naming the character', async () => {
    // Every file write of this agent asks, so a name that got through would stand in an item's
    // summary in front of the operator (`airlock approvals list`, the console's queue).
    const agent = await connectAgent(gatewayUrl, tokens.asker!)
    try {
      for (const [path, character] of [
        ['notes\u001b[2K\r\u001b[32mharmless.txt\u001b]0;owned\u0007.txt', 'U+001B'],
        ['notes\u009b2Kharmless.txt', 'U+009B'],
        ['photo\u202egpj.exe', 'U+202E']
      ] as const) {
        for (const [tool, input] of [
          ['write_file', { path, content: 'x' }],
          ['edit_file', { path, oldText: 'a', newText: 'b' }]
        ] as const) {
          const refused = await callTool(agent.client, tool, input)
          expect(refused.structuredContent.status, `${tool} ${JSON.stringify(path)}`).toBe('error')
          expect(JSON.stringify(refused.structuredContent)).toContain(character)
        }
      }
      const listed = runAirlock(['approvals', 'list', '--home', home]).stdout
      expect(listed).toBe('No approvals wait.\n')
      expect(controlCharsIn(listed)).toEqual([])
    } finally {
      await agent.close().catch(() => undefined)
    }
  })

  it('agent-chosen text with terminal escapes is printed by `airlock history` without raw escapes', async () => {
    const agent = await connectAgent(gatewayUrl, tokens.coder!)
    try {
      await callTool(agent.client, 'write_file', { path: 'esc\u001b]0;pwned\u0007\u001b[2Kname.txt', content: 'x' })
      await callTool(agent.client, 'read_file', { path: 'missing\u001b[31m\u001b[2K\rfake line.txt' })
    } finally {
      await agent.close()
    }
    const human = runAirlock(['history', '--home', home])
    expect(human.code).toBe(0)
    expect(controlCharsIn(human.stdout)).toEqual([])
  })

  it("no agent token appears in serve's stdout/stderr, the history JSON, agent list, any home file, or any process argv", async () => {
    // Provoke the paths that might log: a foreign Host with a real token, a near-miss token, a real session.
    await rawRequest(gatewayUrl, { headers: { ...mcpHeaders(tokens.coder), host: `evil.example:${gatewayPort}` }, body: init })
    await rawRequest(gatewayUrl, { headers: mcpHeaders(`${tokens.coder}x`), body: init })
    const agent = await connectAgent(gatewayUrl, tokens.coder!)
    await callTool(agent.client, 'write_file', { path: 'leak-check.txt', content: 'x' })
    const argvs = [...descendantsOf(served.child.pid!), { pid: served.child.pid!, cmdline: readFileSync(`/proc/${served.child.pid}/cmdline`, 'utf8') }]
    await agent.transport.terminateSession()
    await agent.close()
    const history = runAirlock(['history', '--json', '--limit', '10000', '--home', home]).stdout
    const list = runAirlock(['agent', 'list', '--json', '--home', home]).stdout
    const leaks: string[] = []
    for (const [id, token] of Object.entries(tokens)) {
      if (stdout.includes(token)) leaks.push(`${id}: serve stdout`)
      if (served.stderr().includes(token)) leaks.push(`${id}: serve stderr`)
      if (history.includes(token)) leaks.push(`${id}: history --json`)
      if (list.includes(token)) leaks.push(`${id}: agent list --json`)
      for (const { pid, cmdline } of argvs) if (cmdline.includes(token)) leaks.push(`${id}: argv of ${pid}`)
      for (const file of filesUnder(home)) if (readFileSync(file).includes(token)) leaks.push(`${id}: ${file}`)
    }
    expect(leaks).toEqual([])
  })

  it('mcp-stdio never takes a gateway.json that points off loopback, or one whose writer is dead', async () => {
    const runDir = join(dir.path, 'planted-home', 'run')
    const plantedHome = join(dir.path, 'planted-home')
    // The planted home needs the agent (mcp-stdio checks the token against the home's database first).
    writeFileSync(join(dir.path, 'p.json'), JSON.stringify({ capabilities: ['files'] }))
    const created = JSON.parse(runAirlock(['agent', 'create', 'coder', '--json', '--profile', join(dir.path, 'p.json'), '--home', plantedHome]).stdout) as {
      token: string
    }
    mkdirSync(runDir, { recursive: true, mode: 0o700 })
    const trap = await impostor()
    try {
      // A dead writer (crashed gateway), but the port now belongs to someone else.
      const dead = spawn(process.execPath, ['-e', '0'])
      await new Promise((resolve) => dead.once('exit', resolve))
      for (const address of [
        { url: `http://127.0.0.1:${trap.port}/mcp`, port: trap.port, pid: dead.pid, startedAt: new Date().toISOString() },
        { url: `http://localhost:${trap.port}/mcp`, port: trap.port, pid: process.pid, startedAt: new Date().toISOString() },
        { url: `http://127.0.0.1:${trap.port}/mcp?x=@evil.example`, port: trap.port, pid: process.pid, startedAt: new Date().toISOString() }
      ]) {
        writeFileSync(join(runDir, 'gateway.json'), JSON.stringify(address), { mode: 0o600 })
        const result = await bridgeOnce(plantedHome, created.token)
        expect(result.code).toBe(1)
      }
      expect(trap.seen.map((h) => h.authorization)).toEqual([])
    } finally {
      await trap.close()
    }
  })

  it("mcp-stdio refuses a gateway.json that is a symlink or writable by others (someone else's address file)", async () => {
    const plantedHome = join(dir.path, 'planted-home-2')
    writeFileSync(join(dir.path, 'p2.json'), JSON.stringify({ capabilities: ['files'] }))
    const created = JSON.parse(runAirlock(['agent', 'create', 'coder', '--json', '--profile', join(dir.path, 'p2.json'), '--home', plantedHome]).stdout) as {
      token: string
    }
    mkdirSync(join(plantedHome, 'run'), { recursive: true, mode: 0o700 })
    const trap = await impostor()
    try {
      const address = { url: `http://127.0.0.1:${trap.port}/mcp`, port: trap.port, pid: process.pid, startedAt: new Date().toISOString() }
      // (a) world-writable address file
      writeFileSync(join(plantedHome, 'run', 'gateway.json'), JSON.stringify(address))
      chmodSync(join(plantedHome, 'run', 'gateway.json'), 0o666)
      const a = await bridgeOnce(plantedHome, created.token)
      // (b) symlink to a file elsewhere
      execFileSync('rm', ['-f', join(plantedHome, 'run', 'gateway.json')])
      const elsewhere = join(dir.path, 'elsewhere.json')
      writeFileSync(elsewhere, JSON.stringify(address))
      chmodSync(elsewhere, 0o666)
      symlinkSync(elsewhere, join(plantedHome, 'run', 'gateway.json'))
      const b = await bridgeOnce(plantedHome, created.token)
      // Neither is followed: the bridge exits 1 and the token goes nowhere.
      expect({ worldWritable: a.code, symlink: b.code, tokenSentTo: trap.seen.filter((h) => h.authorization?.includes(created.token)).length }).toEqual({
        worldWritable: 1,
        symlink: 1,
        tokenSentTo: 0
      })
    } finally {
      await trap.close()
    }
  })

  it("once the gateway is gone, mcp-stdio never sends its token to whoever takes the gateway's port", async () => {
    // Last in this block: stops the served gateway.
    const bridge = await stdioClient('coder')
    let trap: Awaited<ReturnType<typeof impostor>> | undefined
    try {
      expect((await bridge.client.listTools()).tools.map((t) => t.name)).toContain('write_file')
      expect(await served.stop()).toBe(0)
      // Another local user (no token) binds the port the gateway left.
      trap = await impostor(gatewayPort)
      await Promise.race([bridge.client.listTools().catch(() => undefined), sleep(5000)])
      await Promise.race([bridge.client.callTool({ name: 'read_file', arguments: { path: 'x' } }).catch(() => undefined), sleep(5000)])
      const stolen = trap.seen.filter((h) => h.authorization?.includes(tokens.coder!))
      expect(stolen.length).toBe(0)
    } finally {
      await bridge.close().catch(() => undefined)
      await trap?.close()
    }
  })
})
