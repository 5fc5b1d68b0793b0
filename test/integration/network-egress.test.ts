import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { openEgressStage, type EgressStage } from '../support/egress-stage'

// Issue 14, through the real action path: agents with `network: "proxy"` run curl and python in
// real bubblewrap sandboxes (an empty network namespace); their only way out is Airlock's egress
// proxy, reached through a unix socket bound into the sandbox. The test's names are pinned to a
// loopback server (`net hosts`), the only place traffic goes. (Docker: network-egress-docker.test.ts.)

const fixtures = join(import.meta.dirname, '../fixtures')
const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

describe.skipIf(skip !== undefined)(`egress through the proxy on bubblewrap${skip ? ` (skipped: ${skip})` : ''}`, { timeout: 60_000 }, () => {
  let stage: EgressStage
  let host: EgressStage['host']
  let port: number
  let seen: string[]
  const run = (agent: string, command: string) => stage.run(agent, command)

  beforeAll(async () => {
    stage = await openEgressStage({
      prefix: 'airlock-egress-',
      pinned: ['pkgs.test', 'blocked.test', 'asked.test', 'vault.test'],
      agents: {
        fetcher: { capabilities: ['shell', 'python'], providers: ['bubblewrap'], network: 'proxy', ask: 'on_risk' },
        quiet: { capabilities: ['shell'], providers: ['bubblewrap'], network: 'proxy', ask: 'never' },
        carrier: {
          capabilities: ['files', 'shell'],
          providers: ['bubblewrap'],
          network: 'proxy',
          ask: 'on_risk',
          classificationCeiling: 'CONFIDENTIAL',
          labels: { paths: { 'secrets/**': 'CONFIDENTIAL' }, domains: { 'vault.test': 'CONFIDENTIAL' } }
        },
        // An upstream MCP server in its bubblewrap sandbox, its network through the proxy too.
        integrator: {
          capabilities: ['mcp'],
          ask: 'never',
          mcpServers: [{ name: 'netprobe', command: [process.execPath, join(fixtures, 'mcp-probe-server.mjs')], readOnlyPaths: [fixtures], network: 'proxy' }]
        }
      }
    })
    ;({ host, port, seen } = stage)
    host.store.network.addRule({ agentId: 'fetcher', decision: 'allow', host: 'pkgs.test' })
    for (const allowed of ['pkgs.test', 'vault.test']) host.store.network.addRule({ agentId: 'carrier', decision: 'allow', host: allowed })
    host.store.network.addRule({ agentId: 'integrator', decision: 'allow', host: 'pkgs.test' })
    host.store.network.addRule({ agentId: null, decision: 'deny', host: 'blocked.test' })
  }, 120_000)

  afterAll(async () => stage?.close())

  it('an allowed domain works through the proxy: plain HTTP, a CONNECT tunnel, and python urllib', async () => {
    const plain = await run('fetcher', `curl -sS http://pkgs.test:${port}/plain`)
    expect(plain.data).toMatchObject({ exitCode: 0, stdout: `hello from pkgs.test:${port}/plain\n` })
    const tunnelled = await run('fetcher', `curl -sS --proxytunnel http://pkgs.test:${port}/tunnel`)
    expect(tunnelled.data).toMatchObject({ exitCode: 0, stdout: `hello from pkgs.test:${port}/tunnel\n` })
    const python = await run(
      'fetcher',
      `python3 -c "import urllib.request; print(urllib.request.urlopen('http://pkgs.test:${port}/py').read().decode(), end='')"`
    )
    expect(python.data).toMatchObject({ exitCode: 0, stdout: `hello from pkgs.test:${port}/py\n` })
    // Each call records the endpoint it reached.
    const detail = host.agents.history.detail(tunnelled.result.meta.callId as string)
    expect(detail.lineage).toEqual([
      expect.objectContaining({ kind: 'tcp', endpoint: `pkgs.test:${port}`, decision: 'allowed', address: '127.0.0.1', bytesDown: expect.any(Number) })
    ])
    expect((detail.lineage[0] as { bytesDown: number }).bytesDown).toBeGreaterThan(0)
  })

  it('SOCKS5 (ALL_PROXY, names resolved by the proxy) is decided the same way', async () => {
    const allowed = await run('fetcher', `curl -sS --proxy "$ALL_PROXY" http://pkgs.test:${port}/socks`)
    expect(allowed.data).toMatchObject({ exitCode: 0, stdout: `hello from pkgs.test:${port}/socks\n` })
    const before = seen.length
    const denied = await run('fetcher', `curl -sS --proxy "$ALL_PROXY" http://blocked.test:${port}/socks; echo "rc=$?"`)
    expect(denied.data.stdout).toMatch(/rc=97\n$/)
    expect(seen.length).toBe(before)
    expect(host.agents.history.detail(denied.result.meta.callId as string).lineage).toEqual([
      expect.objectContaining({ endpoint: `blocked.test:${port}`, decision: 'denied' })
    ])
  })

  it('pip downloads a package from an allowed index through the proxy', async () => {
    const pip = await run(
      'fetcher',
      `python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check --index-url http://pkgs.test:${port}/simple/ --trusted-host pkgs.test -d dl airlock-probe==1.0 2>&1; echo "rc=$?"; ls dl`
    )
    expect(pip.data.stdout, pip.data.stdout).toMatch(/rc=0\nairlock_probe-1\.0-py3-none-any\.whl\n$/)
    expect(seen).toContain(`GET pkgs.test:${port} /simple/airlock-probe/`)
  })

  it('a denied domain fails with a clear message and never reaches the server', async () => {
    const before = seen.length
    const denied = await run('fetcher', `curl -sS http://blocked.test:${port}/x`)
    expect(denied.data.stdout).toMatch(/^Airlock egress: blocked\.test:\d+ is denied by deny blocked\.test \(global/)
    const tunnel = await run('fetcher', `curl -sS --proxytunnel http://blocked.test:${port}/x`)
    expect(tunnel.data.exitCode).not.toBe(0)
    expect(tunnel.data.stderr).toMatch(/403/)
    expect(seen.length).toBe(before)
    expect(host.agents.history.detail(denied.result.meta.callId as string).lineage).toEqual([
      expect.objectContaining({ endpoint: `blocked.test:${port}`, decision: 'denied' })
    ])
  })

  it('an unknown domain under ask waits in the queue; approving lets the waiting connection through', async () => {
    const waiting = run('fetcher', `curl -sS http://asked.test:${port}/asked`)
    await expect.poll(() => host.approvals.list().filter((item) => item.kind === 'network').length, { timeout: 30_000 }).toBe(1)
    const [item] = host.approvals.list().filter((entry) => entry.kind === 'network')
    expect(item!.summary).toBe(`fetcher wants asked.test:${port}`)
    host.approvals.decide({ id: item!.id, decision: 'approve' })
    expect((await waiting).data).toMatchObject({ exitCode: 0, stdout: `hello from asked.test:${port}/asked\n` })
  })

  it('write-down: a session that read CONFIDENTIAL data is asked before it connects to a lower-labelled host, even one a rule allows', async () => {
    const call = (tool: string, input: Record<string, unknown>) => host.agents.sessions.execute({ sessionId: stage.sessions.carrier!, tool, input })
    await call('write_file', { path: 'secrets/x', content: 'airlock-write-down-canary\n' })
    expect(await call('read_file', { path: 'secrets/x' })).toMatchObject({ status: 'success', meta: { policy: { taintAfter: 'CONFIDENTIAL' } } })
    const before = seen.length
    const waiting = run('carrier', `curl -sS http://pkgs.test:${port}/wd`)
    await expect.poll(() => stage.networkItems('carrier').length, { timeout: 30_000 }).toBe(1)
    const [item] = stage.networkItems('carrier')
    expect(item!.summary).toBe(`carrier wants pkgs.test:${port} (write-down)`)
    host.approvals.decide({ id: item!.id, decision: 'deny', reason: 'not to a public host' })
    const refused = await waiting
    expect(refused.data.stdout).toMatch(
      /^Airlock egress: the operator did not approve pkgs\.test:\d+ \(this session has read CONFIDENTIAL data and pkgs\.test is labelled PUBLIC\)/
    )
    expect(seen.length).toBe(before)
    // A host labelled CONFIDENTIAL is not below the taint: its allow rule lets the connection through unasked.
    const labelled = await run('carrier', `curl -sS http://vault.test:${port}/ok`)
    expect(labelled.data).toMatchObject({ exitCode: 0, stdout: `hello from vault.test:${port}/ok\n` })
    expect(stage.networkItems('carrier')).toEqual([])
  })

  it('an upstream MCP server with network proxy reaches an allowed domain through the proxy, recorded with the call; nothing else', async () => {
    const call = (tool: string, input: Record<string, unknown>) => host.agents.sessions.execute({ sessionId: stage.sessions.integrator!, tool, input })
    const probe = (result: Awaited<ReturnType<typeof call>>) => (result.data as { structuredContent: Record<string, unknown> }).structuredContent
    const fetched = await call('netprobe__fetch', { url: `http://pkgs.test:${port}/mcp` })
    expect(probe(fetched)).toEqual({ ok: true, status: 200, body: `hello from pkgs.test:${port}/mcp\n` })
    expect(stage.lineage(fetched.meta.callId)).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'tcp', endpoint: `pkgs.test:${port}`, decision: 'allowed', address: '127.0.0.1' })])
    )
    expect(fetched.meta.provider).toMatchObject({ sandboxed: true, isolation: { networkMode: 'proxy' } })
    const before = seen.length
    const refused = await call('netprobe__fetch', { url: `http://asked.test:${port}/mcp` })
    expect(probe(refused)).toMatchObject({
      ok: true,
      status: 403,
      body: expect.stringMatching(/no rule allows asked\.test:\d+, and agent integrator is never asked/)
    })
    expect(stage.lineage(refused.meta.callId)).toEqual(
      expect.arrayContaining([expect.objectContaining({ endpoint: `asked.test:${port}`, decision: 'denied' })])
    )
    const direct = await call('netprobe__connect', { host: '127.0.0.1', port })
    expect(probe(direct)).toMatchObject({ ok: false })
    expect(seen.length).toBe(before)
  })

  it('under ask never an unknown domain is refused without asking', async () => {
    const refused = await run('quiet', `curl -sS http://pkgs.test:${port}/q`)
    expect(refused.data.stdout).toMatch(/no rule allows pkgs\.test:\d+, and agent quiet is never asked about/)
    expect(host.approvals.list().filter((item) => item.agentId === 'quiet')).toEqual([])
  })

  it('run_code reaches an allowed domain through the proxy too, with its home in /tmp (never the socket folder)', async () => {
    const code = await stage.python(
      'fetcher',
      `import os, urllib.request\nprint(os.environ['HOME'])\nprint(urllib.request.urlopen('http://pkgs.test:${port}/code').read().decode(), end='')`
    )
    expect(code.data).toMatchObject({ exitCode: 0, stdout: `/tmp\nhello from pkgs.test:${port}/code\n` })
    expect(code.lineage()).toEqual([expect.objectContaining({ endpoint: `pkgs.test:${port}`, decision: 'allowed' })])
  })

  it('a direct connection that ignores the proxy fails: the sandbox has no route', async () => {
    const before = seen.length
    const direct = await run('fetcher', `curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${port}/direct; echo "rc=$?"`)
    expect(direct.data.stdout).toMatch(/rc=7\n$/)
    const socket = await run('fetcher', `python3 -c "import socket; s = socket.socket(); s.settimeout(3); print(s.connect_ex(('127.0.0.1', ${port})) != 0)"`)
    expect(socket.data.stdout).toBe('True\n')
    expect(seen.length).toBe(before)
  })

  it.each(['169.254.169.254', '127.0.0.1', '[::ffff:127.0.0.1]', '0x7f000001'])(
    'SSRF: %s is refused before any connection, without an explicit rule',
    async (target) => {
      const before = seen.length
      const refused = await run('fetcher', `curl -sS --proxytunnel http://${target}:${port}/ssrf; echo; curl -sS http://${target}:${port}/ssrf`)
      expect(refused.data.stdout).toMatch(/Airlock egress: .* address; Airlock connects there only when an allow rule names it exactly/)
      expect(seen.length).toBe(before)
      expect(host.approvals.list().filter((item) => item.kind === 'network')).toEqual([])
    }
  )
})

describe.skipIf(skip !== undefined)(`egress from a deep Airlock home${skip ? ` (skipped: ${skip})` : ''}`, { timeout: 60_000 }, () => {
  let stage: EgressStage
  // Was a bug: endpoint sockets lived in the home, and a unix socket path holds at most 107 bytes.
  beforeAll(async () => {
    stage = await openEgressStage({
      prefix: `airlock-egress-deep-${'d'.repeat(120)}-`,
      pinned: ['pkgs.test'],
      agents: { deep: { capabilities: ['shell'], providers: ['bubblewrap'], network: 'proxy', ask: 'never' } }
    })
    stage.host.store.network.addRule({ agentId: 'deep', decision: 'allow', host: 'pkgs.test' })
  }, 120_000)
  afterAll(async () => stage?.close())

  it('a proxied run works from a home whose path is longer than a unix socket path may be', async () => {
    expect(Buffer.byteLength(stage.host.paths.home)).toBeGreaterThan(107)
    const fetched = await stage.run('deep', `curl -sS http://pkgs.test:${stage.port}/deep`)
    expect(fetched.data).toMatchObject({ exitCode: 0, stdout: `hello from pkgs.test:${stage.port}/deep\n` })
  })
})
