import { request as httpRequest } from 'node:http'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAgentGateway, type AgentGateway } from '../../src/main/gateway'
import { createHost, gatewayDeps, type Host } from '../../src/main/host'
import { callTool, connectAgent, initializeBody, mcpHeaders, rawRequest, rpcError } from '../support/mcp-gateway-client'
import { makeTempDir } from '../support/temp-home'

// Hostile requests against the real gateway of a real host: DNS rebinding, foreign origins,
// token tricks, session hijacking, oversize and malformed bodies. Each asserts the exact refusal
// and that the gateway still serves the honest agent afterwards.

const filesOnly = { capabilities: ['files' as const], ask: 'never' as const }

describe('attacks on the agent gateway', () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let gateway: AgentGateway
  const tokens: Record<string, string> = {}
  const init = JSON.stringify(initializeBody)

  beforeAll(async () => {
    dir = makeTempDir('airlock-attack-gateway-')
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    for (const id of ['victim', 'attacker']) tokens[id] = host.agents.service.create(id, { profile: filesOnly }).token
    gateway = await startAgentGateway({ deps: gatewayDeps(host), port: 0, logError: () => undefined })
  })
  afterAll(async () => {
    await gateway?.close()
    await host?.dispose()
    dir?.remove()
  })

  /** The honest agent still works: the gateway was not hurt by what came before. */
  const stillServes = async () => {
    const victim = await connectAgent(gateway.url, tokens.victim!)
    try {
      expect((await callTool(victim.client, 'list_directory', { path: '.' })).structuredContent).toMatchObject({ ok: true })
    } finally {
      await victim.close()
    }
  }

  describe('DNS rebinding: the Host must be this loopback port', () => {
    const hosts: [string, (port: number) => string][] = [
      ['a foreign name', (port) => `evil.example:${port}`],
      ['a name that resolves to 127.0.0.1', (port) => `127.0.0.1.nip.io:${port}`],
      ['localhost with a trailing dot', (port) => `localhost.:${port}`],
      ['another port', (port) => `127.0.0.1:${port + 1}`],
      ['no port', () => '127.0.0.1'],
      ['IPv6 loopback (not where the gateway listens)', (port) => `[::1]:${port}`],
      ['an empty Host', () => '']
    ]
    for (const [name, hostOf] of hosts) {
      it(`refuses ${name}: 421, no session started`, async () => {
        const before = host.store.sessions.list({}).length
        const response = await rawRequest(gateway.url, { headers: { ...mcpHeaders(tokens.victim), host: hostOf(gateway.port) }, body: init })
        expect(response.status).toBe(421)
        expect(rpcError(response.body)).toMatchObject({ code: -32000, data: { reason: 'foreign_host' } })
        expect(host.store.sessions.list({}).length).toBe(before)
      })
    }
    it('accepts localhost:<port> as well as 127.0.0.1:<port>', async () => {
      const response = await rawRequest(gateway.url, { headers: { ...mcpHeaders(tokens.victim), host: `localhost:${gateway.port}` }, body: init })
      expect(response.status).toBe(200)
      expect(response.headers['mcp-session-id']).toEqual(expect.any(String))
    })
  })

  describe('foreign Origins: a web page can never be a client', () => {
    const origins: [string, (port: number) => string][] = [
      ['a foreign site', () => 'https://evil.example'],
      ['the opaque origin "null" (sandboxed iframe, file://)', () => 'null'],
      ['another local port', (port) => `http://127.0.0.1:${port + 1}`],
      ['https on the gateway port', (port) => `https://127.0.0.1:${port}`],
      ['a look-alike suffix', (port) => `http://127.0.0.1:${port}.evil.example`]
    ]
    for (const [name, originOf] of origins) {
      it(`refuses ${name}: 403, no CORS headers`, async () => {
        const response = await rawRequest(gateway.url, { headers: mcpHeaders(tokens.victim, { origin: originOf(gateway.port) }), body: init })
        expect(response.status).toBe(403)
        expect(rpcError(response.body)).toMatchObject({ data: { reason: 'foreign_origin' } })
        expect(Object.keys(response.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
      })
    }
    it('a CORS preflight from a foreign page is refused without any Access-Control header', async () => {
      const response = await rawRequest(gateway.url, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' }
      })
      expect(response.status).toBe(403)
      expect(Object.keys(response.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    })
  })

  describe('token tricks', () => {
    const attempts: [string, () => Record<string, string>, string?][] = [
      ['the token in the query string', () => ({}), `?token=${'TOKEN'}`],
      ['the token in a cookie', () => ({ cookie: `airlock_token=${tokens.victim}` })],
      ['Basic auth carrying the token', () => ({ authorization: `Basic ${Buffer.from(`victim:${tokens.victim}`).toString('base64')}` })],
      ['two tokens in one header', () => ({ authorization: `Bearer ${tokens.victim} ${tokens.attacker}` })],
      ['the token with a character changed', () => ({ authorization: `Bearer ${tokens.victim!.slice(0, -1)}${tokens.victim!.endsWith('A') ? 'B' : 'A'}` })],
      ['a prefix of the token', () => ({ authorization: `Bearer ${tokens.victim!.slice(0, 20)}` })],
      ['a 10 KB token', () => ({ authorization: `Bearer alk_${'a'.repeat(10_000)}` })],
      [
        'the stored digest instead of the token',
        () => ({ authorization: `Bearer ${host.store.agents.credentials().find((c) => c.id === 'victim')!.tokenHash}` })
      ]
    ]
    for (const [name, headers, query] of attempts) {
      it(`refuses ${name}: 401`, async () => {
        const url = `${gateway.url}${query?.replace('TOKEN', tokens.victim!) ?? ''}`
        const response = await rawRequest(url, {
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers() },
          body: init
        })
        expect(response.status).toBe(401)
        expect(rpcError(response.body)).toMatchObject({ code: -32000, data: { reason: 'unauthorized' } })
      })
    }
    it('a disabled agent is refused at once, also in its open session; enabled again, the old session is gone', async () => {
      const attacker = await connectAgent(gateway.url, tokens.attacker!)
      const sessionId = attacker.transport.sessionId!
      host.agents.service.disable('attacker')
      await expect(attacker.client.listTools()).rejects.toThrow(/"reason":"unauthorized"/)
      host.agents.service.enable('attacker')
      await expect(attacker.client.listTools()).rejects.toThrow(/Session not found/)
      await expect.poll(() => host.store.sessions.listByAgent('attacker').find((s) => s.id === sessionId)?.endReason).toBe('agent_disabled')
      await attacker.close().catch(() => undefined)
    })
    it('a rotated token stops working in the session it opened', async () => {
      const { token } = host.agents.service.create('rotating', { profile: filesOnly })
      const agent = await connectAgent(gateway.url, token)
      host.agents.service.rotateToken('rotating')
      await expect(agent.client.listTools()).rejects.toThrow(/"reason":"unauthorized"/)
      await agent.close().catch(() => undefined)
    })
  })

  describe('sessions', () => {
    it('a guessed session id is "session not found"', async () => {
      const response = await rawRequest(gateway.url, {
        headers: mcpHeaders(tokens.attacker, { 'mcp-session-id': '00000000-0000-4000-8000-000000000000' }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      })
      expect([response.status, rpcError(response.body).code]).toEqual([404, -32001])
    })
    it("another agent's session id with one's own token: 404, its calls never run; GET and DELETE too", async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        const sessionId = victim.transport.sessionId!
        const call = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'write_file', arguments: { path: 'pwned.txt', content: 'x' } }
        })
        for (const method of ['POST', 'GET', 'DELETE']) {
          const response = await rawRequest(gateway.url, {
            method,
            headers: mcpHeaders(tokens.attacker, { 'mcp-session-id': sessionId }),
            body: method === 'POST' ? call : undefined
          })
          expect(response.status).toBe(404)
        }
        expect(host.agents.history.list({ text: 'pwned' }).rows).toEqual([])
        expect((await victim.client.listTools()).tools.length).toBeGreaterThan(0)
      } finally {
        await victim.close()
      }
    })
    it('a second initialize inside an open session is refused; the session stays the same', async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        const response = await rawRequest(gateway.url, { headers: mcpHeaders(tokens.victim, { 'mcp-session-id': victim.transport.sessionId! }), body: init })
        expect(response.status).toBe(400)
        expect(rpcError(response.body).message).toMatch(/already initialized/)
      } finally {
        await victim.close()
      }
    })
  })

  describe('bodies', () => {
    it('a chunked body without Content-Length that grows past the limit is cut off with 413', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const target = new URL(gateway.url)
        const req = httpRequest(
          { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: mcpHeaders(tokens.victim) },
          (response) => {
            response.resume()
            resolve(response.statusCode ?? 0)
          }
        )
        req.on('error', reject)
        const chunk = Buffer.alloc(1024 * 1024, 0x20)
        let sent = 0
        const pump = () => {
          while (sent < 64 && req.write(chunk)) sent += 1
          if (sent < 64) req.once('drain', pump)
          else req.end()
        }
        pump()
      }).catch(() => 413)
      expect(status).toBe(413)
      await stillServes()
    })
    const bodies: [string, string | (() => string), number, number][] = [
      ['not JSON', '{"jsonrpc":', 400, -32700],
      ['JSON that is not JSON-RPC', '{"hello":"world"}', 400, -32600],
      ['an empty body', '', 400, -32700],
      ['a JSON string', '"initialize"', 400, -32600],
      ['a batch over the SDK limit', () => JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))), 400, -32600]
    ]
    for (const [name, body, status, code] of bodies) {
      it(`refuses ${name} (no session): ${status} ${code}`, async () => {
        const response = await rawRequest(gateway.url, { headers: mcpHeaders(tokens.victim), body: typeof body === 'function' ? body() : body })
        expect([response.status, rpcError(response.body).code]).toEqual([status, code])
      })
    }
    it('deeply nested arguments are an error result, a __proto__ key pollutes nothing; the gateway keeps serving', async () => {
      const victim = await connectAgent(gateway.url, tokens.victim!)
      try {
        // Too deep for a client's JSON.stringify: written by hand.
        const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
        const body = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"deep.txt","content":${deep}}}}`
        const headers = mcpHeaders(tokens.victim, { 'mcp-session-id': victim.transport.sessionId!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION })
        const nested = await rawRequest(gateway.url, { headers, body })
        expect(nested.status).toBe(200)
        expect(nested.body).toMatch(/"isError":true/)
        expect(nested.body).toMatch(/"status":"error"/)
        // JSON may carry an own "__proto__" key; it must never reach a prototype shared with the host.
        const polluting = JSON.parse('{"path":"p.txt","content":"x","__proto__":{"admin":true,"path":"/etc/passwd"}}') as Record<string, unknown>
        const polluted = await callTool(victim.client, 'write_file', polluting)
        expect(polluted.structuredContent).toMatchObject({ ok: true, data: { path: 'p.txt', bytes: 1 } })
        expect(({} as { admin?: boolean }).admin).toBeUndefined()
        expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'admin')).toBe(false)
      } finally {
        await victim.close()
      }
      await stillServes()
    })
  })
})
