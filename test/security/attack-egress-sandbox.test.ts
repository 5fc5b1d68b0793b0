import { randomBytes } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createNetServer, type Server as NetServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { egressPlace } from '../../src/main/host/egress-wiring'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// Red-team of `network: "proxy"` through the real action path (SPEC §6.5): a hostile agent runs
// commands in a real bubblewrap sandbox and tries to get out around the proxy (IPv6, UDP, abstract
// unix sockets, inherited descriptors, another session's socket), to connect outside any call's
// lineage, to misattribute lineage between calls, to flood the approval queue, and to get a name
// that resolves to loopback approved into a loopback connection. Only loopback servers of this test
// are ever contacted. Every test asserts the SECURE behaviour; a failing one is a hole.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

type Data = { exitCode: number; stdout: string; stderr: string }

describe.skipIf(skip !== undefined)(`red team: egress from a bubblewrap sandbox${skip ? ` (skipped: ${skip})` : ''}`, { timeout: 90_000 }, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let server: Server
  let abstract: NetServer
  let port = 0
  let approver: NodeJS.Timeout
  const abstractName = `\0airlock-redteam-${randomBytes(6).toString('hex')}`
  let abstractHits = 0
  const seen: string[] = []
  const sessions: Record<string, string> = {}
  const run = async (agent: string, command: string, sessionId = sessions[agent]!) => {
    const result = await host.agents.sessions.execute({ sessionId, tool: 'run_command', input: { command } })
    return {
      result,
      data: result.data as Data,
      lineage: () => host.agents.history.detail(result.meta.callId as string).lineage as { endpoint?: string; decision?: string }[]
    }
  }
  const networkItems = (agentId?: string) =>
    host.approvals.list().filter((item) => item.kind === 'network' && (agentId === undefined || item.agentId === agentId))

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.headers.host} ${req.url}`)
      res.end(`hello ${req.url}\n`)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
    abstract = createNetServer((socket) => {
      abstractHits++
      socket.end('ABSTRACT')
    })
    await new Promise<void>((resolve) => abstract.listen(abstractName, resolve))
    dir = makeTempDir('airlock-redteam-egress-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    for (const name of ['pkgs.test', 'one.test', 'two.test']) host.store.network.addHost({ name, address: '127.0.0.1' })
    host.agents.service.create('fetcher', { profile: { capabilities: ['shell', 'python'], providers: ['bubblewrap'], network: 'proxy', ask: 'on_risk' } })
    host.agents.service.create('flooder', { profile: { capabilities: ['shell'], providers: ['bubblewrap'], network: 'proxy', ask: 'on_risk' } })
    host.agents.service.create('victim', { profile: { capabilities: ['shell'], providers: ['bubblewrap'], network: 'proxy', ask: 'on_risk' } })
    for (const agentId of ['fetcher', 'victim']) {
      host.store.network.addRule({ agentId, decision: 'allow', host: 'pkgs.test', port })
      host.store.network.addRule({ agentId, decision: 'allow', host: 'one.test', port })
      host.store.network.addRule({ agentId, decision: 'allow', host: 'two.test', port })
    }
    // the operator wants to be asked each time victim reaches "localhost" (a name; the resolver says 127.0.0.1)
    host.store.network.addRule({ agentId: 'victim', decision: 'ask', host: 'localhost' })
    for (const agent of ['fetcher', 'flooder', 'victim']) sessions[agent] = host.agents.sessions.start(agent, 'test').sessionId
    approver = setInterval(() => {
      for (const item of host.approvals.list()) if (item.kind === 'action') host.approvals.decide({ id: item.id, decision: 'approve' })
    }, 100)
  }, 120_000)

  afterAll(async () => {
    clearInterval(approver)
    await host?.dispose()
    dir?.remove()
    server?.close()
    abstract?.close()
  })

  it('(b) ways around the proxy all fail: IPv6, UDP, abstract unix sockets, raw sockets, host sockets', async () => {
    const script = [
      'import socket, os',
      'def attempt(name, fn):',
      '    try:',
      '        fn(); print(name, "OPEN")',
      '    except Exception as e:',
      '        print(name, "refused", type(e).__name__)',
      'def tcp6():',
      '    s = socket.socket(socket.AF_INET6); s.settimeout(2); s.connect(("::1", ' + port + '))',
      'def tcp4():',
      '    s = socket.socket(); s.settimeout(2); s.connect(("127.0.0.1", ' + port + '))',
      'def udp():',
      '    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2); s.sendto(b"x", ("10.0.0.1", 53)); s.sendto(b"x", ("8.8.8.8", 53))',
      'def abstract():',
      '    s = socket.socket(socket.AF_UNIX); s.settimeout(2); s.connect("' + abstractName.replace('\0', '\\0') + '"); print(s.recv(20))',
      'def raw():',
      '    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)',
      'def packet():',
      '    socket.socket(socket.AF_PACKET, socket.SOCK_RAW)',
      'def docker():',
      '    s = socket.socket(socket.AF_UNIX); s.connect("/var/run/docker.sock")',
      'def dns():',
      '    socket.getaddrinfo("example.com", 80)',
      'for name, fn in [("tcp6", tcp6), ("tcp4", tcp4), ("udp", udp), ("abstract", abstract), ("raw", raw), ("packet", packet), ("docker", docker), ("dns", dns)]:',
      '    attempt(name, fn)'
    ].join('\n')
    const { data } = await run('fetcher', `python3 - <<'PY'\n${script}\nPY`)
    expect(data.stdout).not.toMatch(/OPEN/)
    expect(data.stdout.trim().split('\n')).toHaveLength(8)
    expect(abstractHits).toBe(0)
  })

  it('(b)(d) the sandbox holds no descriptor but stdio and sees exactly its own egress socket', async () => {
    const fds = [
      'import os',
      'out = []',
      'for fd in os.listdir("/proc/self/fd"):',
      '    try:',
      '        link = os.readlink("/proc/self/fd/" + fd)',
      '    except OSError:',
      '        continue',
      '    if int(fd) > 2 and not link.startswith("/proc"): out.append((int(fd), link))',
      'print(sorted(out))'
    ].join('\n')
    const { data } = await run('fetcher', `python3 - <<'PY'\n${fds}\nPY\nls -A /run/airlock-egress; find / -type s 2>/dev/null | grep -v '^/proc'; echo end`)
    const lines = data.stdout.trim().split('\n')
    // nothing inherited beyond stdio; the only socket anywhere is this sandbox's own egress socket
    expect(lines).toEqual(['[]', 'proxy.sock', '/run/airlock-egress/proxy.sock', 'end'])
  })

  it("(d) another agent's egress socket cannot be reached from this sandbox", async () => {
    const { runDir, prefix } = egressPlace(host.paths.home)
    const victimRun = run('victim', 'sleep 6')
    // find the victim's socket on the host while its sandbox runs
    let victimSocket: string | undefined
    const known = new Set<string>()
    await expect
      .poll(
        () => {
          for (const entry of readdirSync(runDir).filter((name) => name.startsWith(prefix))) {
            const path = join(runDir, entry, 'proxy.sock')
            try {
              if (statSync(path).isSocket()) known.add(path)
            } catch {
              /* gone */
            }
          }
          victimSocket = [...known][known.size - 1]
          return known.size
        },
        { timeout: 20_000 }
      )
      .toBeGreaterThan(0)
    const dirMode = statSync(join(victimSocket!, '..')).mode & 0o777
    const sockMode = statSync(victimSocket!).mode & 0o777
    expect(dirMode & 0o007).toBe(0)
    expect(sockMode & 0o077).toBe(0)
    const attempt = await run(
      'fetcher',
      `python3 -c "
import socket
for path in ${JSON.stringify([...known])}:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path); s.sendall(b'GET http://pkgs.test:${port}/stolen HTTP/1.1\\r\\nHost: pkgs.test:${port}\\r\\n\\r\\n'); print('OPEN', s.recv(100))
    except Exception as e:
        print('refused', type(e).__name__)
"`
    )
    expect(attempt.data.stdout).not.toMatch(/OPEN/)
    expect(seen).not.toContain(`pkgs.test:${port} /stolen`)
    await victimRun
  })

  it("(c) a background process cannot connect after its call ended (outside any call's lineage)", async () => {
    const launched = await run('fetcher', `(setsid nohup bash -c 'sleep 2; curl -s http://pkgs.test:${port}/late >/dev/null' >/dev/null 2>&1 &) ; echo started`)
    expect(launched.data.stdout).toBe('started\n')
    await new Promise((resolve) => setTimeout(resolve, 5000))
    expect(seen).not.toContain(`pkgs.test:${port} /late`)
  })

  it("(c) a tunnel still open when the program ends is recorded in that call's lineage, not in the next one", async () => {
    const holder = [
      'import socket, time',
      's = socket.create_connection(("127.0.0.1", 3128))',
      `s.sendall(b"CONNECT one.test:${port} HTTP/1.1\\r\\n\\r\\n")`,
      'print(s.recv(200).split(b"\\r\\n")[0].decode(), flush=True)',
      `s.sendall(b"GET /held HTTP/1.1\\r\\nHost: one.test:${port}\\r\\n\\r\\n")`,
      'print(len(s.recv(500)) > 0, flush=True)',
      'time.sleep(60)'
    ].join('\n')
    const held = await run('fetcher', `cat > /tmp/h.py <<'PY'\n${holder}\nPY\npython3 /tmp/h.py & sleep 2; echo done`)
    expect(held.data.stdout).toMatch(/200 Connection Established\nTrue\ndone\n/)
    expect(seen).toContain(`one.test:${port} /held`)
    const next = await run('fetcher', 'true')
    expect(held.lineage()).toEqual([expect.objectContaining({ endpoint: `one.test:${port}`, decision: 'allowed' })])
    expect(next.lineage()).toEqual([])
  })

  it('(c) two calls of one session at once: each lineage lists only its own connections', async () => {
    const first = run('fetcher', `curl -s http://one.test:${port}/first >/dev/null; sleep 4; echo first`)
    await new Promise((resolve) => setTimeout(resolve, 2500))
    const second = await run('fetcher', `curl -s http://two.test:${port}/second >/dev/null; echo second`)
    const firstDone = await first
    expect(firstDone.data.stdout).toBe('first\n')
    expect(second.data.stdout).toBe('second\n')
    expect(second.lineage().map((entry) => entry.endpoint)).toEqual([`two.test:${port}`])
    expect(firstDone.lineage().map((entry) => entry.endpoint)).toEqual([`one.test:${port}`])
  })

  it('(a) approving (once, then as a rule) a name that resolves to loopback does not open loopback', async () => {
    const before = seen.length
    const waiting = run(
      'fetcher',
      `curl -sS --max-time 30 http://localhost:${port}/viadns; echo; curl -sS --max-time 30 --proxytunnel http://localhost:${port}/viadns2`
    )
    for (let i = 0; i < 2; i++) {
      await expect.poll(() => networkItems('fetcher').length, { timeout: 30_000 }).toBe(1)
      const [item] = networkItems('fetcher')
      expect(item!.summary).toBe(`fetcher wants localhost:${port}`)
      // once, then "as a rule" (an approval rule, which must not be an exemption for private addresses)
      host.approvals.decide(i === 0 ? { id: item!.id, decision: 'approve' } : { id: item!.id, decision: 'approve', scope: 'rule' })
      await expect.poll(() => networkItems('fetcher').length, { timeout: 5000 }).toBe(0)
    }
    const { data } = await waiting
    expect(data.stdout).toMatch(/resolves to 127\.0\.0\.1/)
    expect(seen.slice(before)).toEqual([])
  })

  it('(a) an exact ASK rule, approved once, does not open loopback for a name that resolves there', async () => {
    const before = seen.length
    const waiting = run('victim', `curl -sS --max-time 30 http://localhost:${port}/via-ask-rule`)
    await expect.poll(() => networkItems('victim').length, { timeout: 30_000 }).toBe(1)
    const [item] = networkItems('victim')
    expect(item!.summary).toBe(`victim wants localhost:${port}`)
    host.approvals.decide({ id: item!.id, decision: 'approve' })
    const { data } = await waiting
    expect(data.stdout).toMatch(/resolves to 127\.0\.0\.1/)
    expect(seen.slice(before)).toEqual([])
  })

  it('(c) a flood of asks is bounded per agent, and a question whose connection gave up is withdrawn', async () => {
    const flood = run('flooder', `for i in $(seq 1 45); do curl -s --max-time 6 http://h$i.flood.test:${port}/ >/dev/null & done; wait; echo flooded`)
    await expect.poll(() => networkItems('flooder').length, { timeout: 30_000 }).toBeGreaterThanOrEqual(20)
    // another agent's question still reaches the queue while the flood waits
    const victim = run('victim', `curl -s --max-time 20 http://victim-asks.test:${port}/ >/dev/null; echo asked`)
    await expect.poll(() => networkItems('victim').length, { timeout: 20_000 }).toBe(1)
    let most = 0
    for (let i = 0; i < 10; i++) {
      most = Math.max(most, networkItems('flooder').length)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(most).toBeLessThanOrEqual(32)
    host.approvals.decide({ id: networkItems('victim')[0]!.id, decision: 'deny', reason: 'no' })
    expect((await flood).data.stdout).toBe('flooded\n')
    await victim
    // every curl gave up (6 s) and the call is over: nobody waits for these questions any more
    const orphans = networkItems('flooder').length
    for (const item of networkItems('flooder')) host.approvals.decide({ id: item.id, decision: 'deny', reason: 'cleanup' })
    expect(orphans).toBe(0)
  })
})
