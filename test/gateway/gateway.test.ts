import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HistoryRow } from '@shared/ipc/history'
import { startAgentGateway, type AgentGateway, type ApprovalWaits } from '../../src/main/gateway'
import { createHost, gatewayDeps, type Host } from '../../src/main/host'
import { callTool, connectAgent, initializeBody, mcpHeaders, rawRequest, rpcError } from '../support/mcp-gateway-client'
import { startUpstream } from '../support/mcp-upstream'
import { makeTempDir } from '../support/temp-home'

// The agent gateway end to end in one process: a real host on a real SQLite file, the real gateway
// on a loopback port, the SDK's own Streamable HTTP client, and a real upstream MCP server.

const filesOnly = { capabilities: ['files' as const], ask: 'never' as const }
const refusalOf = async (promise: Promise<unknown>): Promise<McpError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e
  )
  expect(error).toBeInstanceOf(McpError)
  return error as McpError
}

describe('agent gateway (MCP over Streamable HTTP)', () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let gateway: AgentGateway
  let upstream: Awaited<ReturnType<typeof startUpstream>>
  const tokens: Record<string, string> = {}
  const waits: { callId: string; listener: Parameters<ApprovalWaits['watchCall']>[1] }[] = []

  /** Every history row of an agent (all pages). */
  const historyOf = (agentId: string): HistoryRow[] => {
    const rows: HistoryRow[] = []
    let cursor: number | undefined
    do {
      const page = host.agents.history.list({ agentId, limit: 500, ...(cursor ? { cursor } : {}) })
      rows.push(...page.rows)
      cursor = page.nextCursor
    } while (cursor)
    return rows
  }

  beforeAll(async () => {
    dir = makeTempDir('airlock-gateway-')
    upstream = await startUpstream()
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    for (const id of ['alice', 'bob', 'mallory']) tokens[id] = host.agents.service.create(id, { profile: filesOnly }).token
    tokens.carol = host.agents.service.create('carol', {
      profile: { ...filesOnly, capabilities: ['files', 'mcp'], mcpServers: [{ name: 'up', url: upstream.url }] }
    }).token
    // The approval queue's hook, driven by the test: the gateway's side (progress to the client) is under test.
    const approvalWaits: ApprovalWaits = {
      watchCall: (callId, listener) => {
        const entry = { callId, listener }
        waits.push(entry)
        return () => waits.splice(waits.indexOf(entry), 1)
      }
    }
    gateway = await startAgentGateway({ deps: gatewayDeps(host), port: 0, approvalWaits, logError: () => undefined, sweepMs: 200 })
  })
  afterAll(async () => {
    await gateway?.close()
    await host?.dispose()
    await upstream?.close()
    dir?.remove()
  })

  it("lists the agent's tools with JSON Schemas from their zod inputs", async () => {
    const alice = await connectAgent(gateway.url, tokens.alice!)
    try {
      expect(alice.client.getServerVersion()).toMatchObject({ name: 'airlock' })
      const { tools } = await alice.client.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual(['edit_file', 'list_directory', 'read_file', 'search_files', 'write_file'])
      const write = tools.find((t) => t.name === 'write_file')!
      expect(write.inputSchema).toMatchObject({
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
        additionalProperties: false
      })
      expect(tools.find((t) => t.name === 'read_file')!.annotations).toEqual({ readOnlyHint: true })
    } finally {
      await alice.close()
    }
  })

  it('write_file then read_file: structuredContent is the ActionResult, one text block, recorded in the MCP session', async () => {
    const alice = await connectAgent(gateway.url, tokens.alice!)
    try {
      const sessionId = alice.transport.sessionId!
      expect(host.store.sessions.listByAgent('alice')[0]).toMatchObject({ id: sessionId, transport: 'mcp-http', endedAt: null })
      const written = await callTool(alice.client, 'write_file', { path: 'notes/hello.txt', content: 'hello from the gateway\n' })
      expect(written.isError).toBe(false)
      expect(written.structuredContent).toMatchObject({ ok: true, status: 'success', data: { path: 'notes/hello.txt', bytes: 23 } })
      expect(written.content).toHaveLength(1)
      expect(readFileSync(join(dir.path, 'workspaces', 'alice', 'notes', 'hello.txt'), 'utf8')).toBe('hello from the gateway\n')
      const read = await callTool(alice.client, 'read_file', { path: 'notes/hello.txt' })
      expect(read.structuredContent).toMatchObject({ ok: true, status: 'success', data: { content: 'hello from the gateway\n', truncated: false } })
      expect(read.content).toEqual([{ type: 'text', text: 'hello from the gateway\n' }])
      const rows = historyOf('alice').filter((row) => row.sessionId === sessionId)
      expect(rows.map((row) => [row.tool, row.status]).sort()).toEqual([
        ['read_file', 'success'],
        ['write_file', 'success']
      ])
    } finally {
      await alice.close()
    }
  })

  it('a failed call is a result with isError and the reason, not a protocol error', async () => {
    const alice = await connectAgent(gateway.url, tokens.alice!)
    try {
      const missing = await callTool(alice.client, 'read_file', { path: 'no/such/file.txt' })
      expect(missing.isError).toBe(true)
      expect(missing.structuredContent).toMatchObject({ ok: false, status: 'error', error: { code: expect.any(String) } })
      expect((missing.content as { text: string }[])[0]!.text).toMatch(/^read_file error: /)
    } finally {
      await alice.close()
    }
  })

  it('no token, a wrong token, a rotated token and a disabled agent are all 401 with a JSON-RPC error; nothing opens', async () => {
    const before = host.store.sessions.list({}).length
    const attempts = [undefined, 'alk_' + 'x'.repeat(43), 'not-even-a-token']
    for (const token of attempts) {
      const response = await rawRequest(gateway.url, { headers: mcpHeaders(token), body: JSON.stringify(initializeBody) })
      expect(response.status).toBe(401)
      expect(response.headers['www-authenticate']).toBe('Bearer realm="airlock"')
      expect(rpcError(response.body)).toMatchObject({ code: -32000, data: { reason: 'unauthorized' } })
    }
    const { token } = host.agents.service.create('temp', { profile: filesOnly })
    host.agents.service.rotateToken('temp')
    expect((await rawRequest(gateway.url, { headers: mcpHeaders(token), body: JSON.stringify(initializeBody) })).status).toBe(401)
    host.agents.service.disable('bob')
    try {
      await expect(connectAgent(gateway.url, tokens.bob!)).rejects.toThrow(/401|Bearer/)
    } finally {
      host.agents.service.enable('bob')
    }
    expect(host.store.sessions.list({}).length).toBe(before)
  })

  it('a foreign Host (DNS rebinding) is 421 and a foreign Origin 403, before the token is even looked at; no CORS headers', async () => {
    const host421 = await rawRequest(gateway.url, {
      headers: { ...mcpHeaders(tokens.alice), host: `evil.example:${gateway.port}` },
      body: JSON.stringify(initializeBody)
    })
    expect(host421.status).toBe(421)
    expect(rpcError(host421.body)).toMatchObject({ code: -32000, data: { reason: 'foreign_host' } })
    const origin403 = await rawRequest(gateway.url, {
      headers: mcpHeaders(tokens.alice, { origin: 'https://evil.example' }),
      body: JSON.stringify(initializeBody)
    })
    expect(origin403.status).toBe(403)
    expect(rpcError(origin403.body)).toMatchObject({ data: { reason: 'foreign_origin' } })
    const preflight = await rawRequest(gateway.url, {
      method: 'OPTIONS',
      headers: { origin: `http://127.0.0.1:${gateway.port}`, 'access-control-request-method': 'POST' }
    })
    expect(preflight.status).toBe(405)
    for (const response of [host421, origin403, preflight]) expect(Object.keys(response.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
  })

  it('an oversize body is 413 without being read; the gateway keeps serving', async () => {
    const huge = Buffer.alloc(21 * 1024 * 1024, 0x20)
    const response = await rawRequest(gateway.url, { headers: mcpHeaders(tokens.alice), body: huge }).catch((error: Error) => ({
      status: 0,
      body: error.message,
      headers: {}
    }))
    // The 413 is sent at once; a client still sending may see the connection closed instead.
    if (response.status !== 0) {
      expect(response.status).toBe(413)
      expect(rpcError(response.body)).toMatchObject({ data: { reason: 'body_too_large' } })
    }
    const alice = await connectAgent(gateway.url, tokens.alice!)
    expect((await alice.client.listTools()).tools.length).toBeGreaterThan(0)
    await alice.close()
  })

  it('malformed JSON and messages that are not JSON-RPC are refused with the JSON-RPC error for each', async () => {
    const notJson = await rawRequest(gateway.url, { headers: mcpHeaders(tokens.alice), body: '{"jsonrpc": "2.0", "method": ' })
    expect([notJson.status, rpcError(notJson.body).code]).toEqual([400, -32700])
    const noSession = await rawRequest(gateway.url, {
      headers: mcpHeaders(tokens.alice),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
    })
    expect([noSession.status, rpcError(noSession.body)]).toEqual([400, expect.objectContaining({ code: -32600, message: expect.stringMatching(/initialize/) })])
    const alice = await connectAgent(gateway.url, tokens.alice!)
    try {
      const headers = mcpHeaders(tokens.alice, { 'mcp-session-id': alice.transport.sessionId!, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION })
      // Not JSON-RPC: -32600 Invalid Request, each with why (JSON-RPC 2.0, MCP transport).
      const invalid = async (body: string, reason: string) => {
        const refused = await rawRequest(gateway.url, { headers, body })
        expect([refused.status, rpcError(refused.body).code, rpcError(refused.body).data?.reason]).toEqual([400, -32600, reason])
      }
      await invalid(JSON.stringify({ hello: 'world' }), 'jsonrpc_version')
      await invalid('[]', 'empty_batch')
      await invalid(JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list' }), 'invalid_id')
      await invalid(JSON.stringify({ id: 3, method: 'tools/list' }), 'jsonrpc_version')
      await invalid(JSON.stringify({ jsonrpc: '2.0', id: 4 }), 'method_missing')
      await invalid('7', 'not_an_object')
      // Batches were removed in 2025-06-18; this session negotiated a later version.
      await invalid(JSON.stringify([{ jsonrpc: '2.0', id: 5, method: 'tools/list' }]), 'batch_not_supported')
      // The header must name the negotiated version.
      const mismatch = await rawRequest(gateway.url, {
        headers: { ...headers, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' })
      })
      expect([mismatch.status, rpcError(mismatch.body).data?.reason]).toEqual([400, 'protocol_version_mismatch'])
      expect(rpcError(mismatch.body).message).toContain(LATEST_PROTOCOL_VERSION)
      const unknownMethod = await rawRequest(gateway.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/teleport', params: {} }) })
      expect(unknownMethod.body).toMatch(/"error":\{"code":-32601,"message":"Method not found"/)
    } finally {
      await alice.close()
    }
  })

  it('an unknown tool is -32602 naming it, unrecorded; schema-invalid arguments are a recorded error result naming the field', async () => {
    const alice = await connectAgent(gateway.url, tokens.alice!)
    try {
      const before = historyOf('alice').length
      const unknown = await refusalOf(callTool(alice.client, 'launch_missiles', {}))
      expect(unknown.code).toBe(-32602)
      expect(unknown.message).toMatch(/Unknown tool: "launch_missiles" is not a tool of agent alice/)
      const notEnabled = await refusalOf(callTool(alice.client, 'run_command', { command: 'id' }))
      expect(notEnabled.message).toMatch(/Unknown tool: "run_command"/)
      expect(historyOf('alice').length).toBe(before)
      // The model sees what was wrong and can correct it (MCP: input validation errors are tool execution errors).
      const invalid = await callTool(alice.client, 'write_file', { path: 'x.txt', content: 42, extra: true })
      expect(invalid.isError).toBe(true)
      expect(invalid.structuredContent).toMatchObject({
        ok: false,
        status: 'error',
        error: { code: 'invalid_input', message: expect.stringMatching(/^Invalid input for write_file: .*content/) }
      })
      expect((invalid.content as { text: string }[])[0]!.text).toMatch(/^write_file error: Invalid input for write_file/)
      const rows = historyOf('alice')
      expect(rows).toHaveLength(before + 1)
      expect(rows[0]).toMatchObject({ tool: 'write_file', status: 'error', error: { code: 'invalid_input' } })
    } finally {
      await alice.close()
    }
  })

  it("agent A cannot touch agent B's workspace, nor use B's MCP session", async () => {
    const [alice, bob] = [await connectAgent(gateway.url, tokens.alice!), await connectAgent(gateway.url, tokens.bob!)]
    try {
      expect((await callTool(bob.client, 'write_file', { path: 'secret.txt', content: 'bob only' })).isError).toBe(false)
      const bobWorkspace = join(dir.path, 'workspaces', 'bob')
      symlinkSync(bobWorkspace, join(dir.path, 'workspaces', 'alice', 'link-to-bob'))
      for (const path of ['../bob/secret.txt', join(bobWorkspace, 'secret.txt'), 'link-to-bob/secret.txt']) {
        const read = await callTool(alice.client, 'read_file', { path })
        expect(read.structuredContent).toMatchObject({ ok: false })
        expect(JSON.stringify(read)).not.toMatch(/bob only/)
        expect((await callTool(alice.client, 'write_file', { path, content: 'alice was here' })).structuredContent).toMatchObject({ ok: false })
      }
      expect(readFileSync(join(bobWorkspace, 'secret.txt'), 'utf8')).toBe('bob only')
      // Bob's session id with Alice's token: as if it did not exist.
      const hijack = await rawRequest(gateway.url, {
        headers: mcpHeaders(tokens.alice, { 'mcp-session-id': bob.transport.sessionId!, 'mcp-protocol-version': '2025-06-18' }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'secret.txt' } } })
      })
      expect([hijack.status, rpcError(hijack.body).code]).toEqual([404, -32001])
      expect(hijack.body).not.toMatch(/bob only/)
      const deleteOther = await rawRequest(gateway.url, { method: 'DELETE', headers: mcpHeaders(tokens.alice, { 'mcp-session-id': bob.transport.sessionId! }) })
      expect(deleteOther.status).toBe(404)
      expect((await callTool(bob.client, 'read_file', { path: 'secret.txt' })).structuredContent).toMatchObject({ ok: true, data: { content: 'bob only' } })
    } finally {
      await alice.close()
      await bob.close()
    }
  })

  it('upstream MCP tools are proxied as <server>__<tool>; closing the session ends it and releases its session resources', async () => {
    const carol = await connectAgent(gateway.url, tokens.carol!)
    const sessionId = carol.transport.sessionId!
    const { tools } = await carol.client.listTools()
    expect(tools.find((t) => t.name === 'up__echo')).toMatchObject({ inputSchema: { type: 'object', properties: { text: { type: 'string' } } } })
    const echoed = await callTool(carol.client, 'up__echo', { text: 'through the gateway' })
    expect(echoed).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'echo: through the gateway' }],
      structuredContent: { status: 'success', meta: { mcp: { server: 'up', tool: 'echo' } } }
    })
    expect(host.resources.list({ scope: 'session', ownerId: sessionId })).toHaveLength(1)
    await carol.transport.terminateSession()
    await carol.close()
    await expect.poll(() => host.resources.list({ scope: 'session', ownerId: sessionId }).length, { timeout: 5000 }).toBe(0)
    await expect.poll(() => host.store.sessions.listByAgent('carol').find((s) => s.id === sessionId)?.endReason, { timeout: 5000 }).toBe('closed_by_client')
    expect(gateway.sessions().some((s) => s.sessionId === sessionId)).toBe(false)
  })

  it('a cancelled call is cancelled all the way upstream and recorded as cancelled', async () => {
    const carol = await connectAgent(gateway.url, tokens.carol!)
    try {
      const abort = new AbortController()
      const call = callTool(carol.client, 'up__wait', { label: 'cancel-me', ms: 20_000 }, { signal: abort.signal })
      await expect.poll(() => upstream.started, { timeout: 10_000 }).toContain('cancel-me')
      abort.abort('the agent changed its mind')
      await expect(call).rejects.toThrow()
      await expect.poll(() => upstream.cancelled, { timeout: 5000 }).toContain('cancel-me')
      await expect.poll(() => historyOf('carol').find((row) => row.tool === 'up__wait')?.status, { timeout: 5000 }).toBe('cancelled')
    } finally {
      await carol.close()
    }
  })

  it('while a call waits for approval, the client gets progress notifications when it asked for them', async () => {
    const carol = await connectAgent(gateway.url, tokens.carol!)
    try {
      const progress: string[] = []
      const call = callTool(carol.client, 'up__wait', { label: 'slow', ms: 1500 }, { onprogress: (p) => progress.push(p.message ?? '') })
      await expect.poll(() => waits.length, { timeout: 5000 }).toBe(1)
      waits[0]!.listener({ approvalId: 'ap-1', state: 'waiting', summary: 'up__wait slow', expiresAt: '2030-01-01T00:00:00Z' })
      await expect.poll(() => progress.length, { timeout: 5000 }).toBe(1)
      waits[0]!.listener({ approvalId: 'ap-1', state: 'approved' })
      expect((await call).structuredContent).toMatchObject({ status: 'success' })
      expect(progress).toEqual([
        "waiting for the operator's approval (item ap-1: up__wait slow; denied if not decided by 2030-01-01T00:00:00Z)",
        'approval ap-1: approved'
      ])
      expect(waits).toHaveLength(0)
    } finally {
      await carol.close()
    }
  })

  it('1000 concurrent calls from one agent: the excess is refused clearly, another agent is still served, no half-recorded rows', async () => {
    const mallory = await connectAgent(gateway.url, tokens.mallory!, { maxSockets: 64 })
    const bob = await connectAgent(gateway.url, tokens.bob!)
    try {
      writeFileSync(join(dir.path, 'workspaces', 'mallory', 'data.txt'), 'x')
      writeFileSync(join(dir.path, 'workspaces', 'bob', 'served.txt'), 'bob is served')
      const flood = Array.from({ length: 1000 }, () =>
        callTool(mallory.client, 'read_file', { path: 'data.txt' }).then(
          (result) => ({ ok: true as const, result }),
          (error: McpError) => ({ ok: false as const, error })
        )
      )
      const served = await callTool(bob.client, 'read_file', { path: 'served.txt' })
      expect(served.structuredContent).toMatchObject({ ok: true, data: { content: 'bob is served' } })
      const outcomes = await Promise.all(flood)
      const succeeded = outcomes.filter((o) => o.ok)
      const refused = outcomes.flatMap((o) => (o.ok ? [] : [o.error]))
      expect(succeeded.length).toBeGreaterThan(0)
      // Both limits refuse some: too many at once (max_concurrent_calls) and too many per minute (rate_per_minute).
      expect(refused.some((e) => e.code === -32020)).toBe(true)
      expect(refused.some((e) => e.code === -32029)).toBe(true)
      for (const error of refused) {
        expect(error).toBeInstanceOf(McpError)
        expect([-32020, -32029]).toContain(error.code)
        expect(error.message).toMatch(/agent mallory .*\(setting gateway\.(max_concurrent_calls|rate_per_minute)/)
      }
      for (const { result } of succeeded as { result: Awaited<ReturnType<typeof callTool>> }[]) expect(result.structuredContent.status).toBe('success')
      const rows = historyOf('mallory')
      expect(rows).toHaveLength(succeeded.length)
      expect(rows.every((row) => row.status === 'success' && row.finishedAt !== null)).toBe(true)
    } finally {
      await mallory.close()
      await bob.close()
    }
  }, 120_000)

  it('an idle session ends after gateway.idle_timeout_seconds and a request to it is then "session not found"', async () => {
    host.settings.set('gateway.idle_timeout_seconds', 10)
    const alice = await connectAgent(gateway.url, tokens.alice!)
    const sessionId = alice.transport.sessionId!
    try {
      await expect
        .poll(() => host.store.sessions.listByAgent('alice').find((s) => s.id === sessionId)?.endReason, { timeout: 15_000, interval: 250 })
        .toBe('idle_timeout')
      await expect(alice.client.listTools()).rejects.toThrow(/Session not found: it ended or never existed; start a new session with initialize/)
    } finally {
      host.settings.reset('gateway.idle_timeout_seconds')
      await alice.close().catch(() => undefined)
    }
  }, 30_000)
})
