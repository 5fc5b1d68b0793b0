import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import ipaddr from 'ipaddr.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EgressRecord } from '@shared/network'
import type { EgressEndpoint } from '../../src/main/core'
import { EgressProxy, egressGate } from '../../src/main/network'
import { makeTempDir } from '../support/temp-home'

// The egress proxy attacked on its own socket, the way a hostile sandbox could: malformed CONNECT
// lines, absurd host names, IP literals in every notation, a Host header that lies, a client that
// never finishes its request, and a thousand parallel connections. Each is refused or bounded,
// and the proxy keeps serving (another endpoint, and this one afterwards).

describe('attacks on the egress proxy', () => {
  let dir: ReturnType<typeof makeTempDir>
  let server: Server
  let port: number
  let proxy: EgressProxy
  let endpoint: EgressEndpoint
  let other: EgressEndpoint
  const seen: string[] = []

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.headers.host} ${req.url}`)
      res.end('ok')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as { port: number }).port
    dir = makeTempDir('airlock-egress-attack-')
    proxy = new EgressProxy({
      runDir: join(dir.path, 'run'),
      maxConnections: 32,
      gate: egressGate({
        rules: () => [{ id: 'allow-pkgs', agentId: null, decision: 'allow', host: 'pkgs.test', createdAt: '2026-01-01T00:00:00Z' }],
        pinned: (name) => (name === 'pkgs.test' ? '127.0.0.1' : undefined),
        agentOf: () => ({ agentId: 'attacker', ask: 'never', approvalTimeoutSeconds: 1 }),
        ask: async () => false,
        lookup: async () => {
          throw new Error('no DNS in this test')
        }
      })
    })
    // Windowed endpoints with a run always going on: these attacks are on what the proxy parses
    // (token-mode admission is attacked below, on endpoints of its own).
    endpoint = await proxy.open({ scope: 'session', ownerId: 'a' }, { attribution: 'window' })
    other = await proxy.open({ scope: 'session', ownerId: 'b' }, { attribution: 'window' })
    begin(endpoint)
    begin(other)
  })
  afterAll(async () => {
    await endpoint?.close()
    await other?.close()
    server?.close()
    dir?.remove()
  })

  /** The run going on at each endpoint; `take` ends it (its records) and starts the next. */
  const runs = new Map<EgressEndpoint, () => EgressRecord[]>()
  const begin = (target: EgressEndpoint) => runs.set(target, target.track(randomUUID()))
  const take = (target: EgressEndpoint) => {
    const records = runs.get(target)!()
    begin(target)
    return records
  }

  /** Sends raw bytes to an endpoint's socket and reads until it closes (or `ms` pass). */
  function exchange(target: EgressEndpoint, bytes: string, ms = 5000): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(join(target.socketDir, target.socketName))
      let text = ''
      const timer = setTimeout(() => {
        socket.destroy()
        resolve(text)
      }, ms)
      socket.on('data', (chunk) => (text += chunk.toString()))
      socket.on('close', () => {
        clearTimeout(timer)
        resolve(text)
      })
      socket.on('error', () => undefined)
      socket.write(bytes)
    })
  }
  const works = async (target: EgressEndpoint) =>
    expect(await exchange(target, `GET http://pkgs.test:${port}/alive HTTP/1.1\r\nHost: pkgs.test:${port}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200[\s\S]*ok$/)

  it.each([
    ['no port', 'CONNECT pkgs.test HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400/],
    ['port 0', 'CONNECT pkgs.test:0 HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400/],
    ['port 70000', 'CONNECT pkgs.test:70000 HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400/],
    ['a path', 'CONNECT pkgs.test:80/x HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400/],
    ['spaces', 'CONNECT pkgs .test:80 HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400/],
    ['a 5000-character host', `CONNECT ${'a'.repeat(5000)}:80 HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400/],
    ['a 300-character host', `CONNECT ${'a.'.repeat(150)}test:80 HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400/],
    ['a label with an underscore', 'CONNECT bad_host.test:80 HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 403[\s\S]*not a host name/],
    ['garbage', '\x00\x01\x02 nonsense\r\n\r\n', /^HTTP\/1\.1 400/],
    ['an origin-form request', 'GET /x HTTP/1.1\r\nHost: pkgs.test\r\n\r\n', /^HTTP\/1\.1 400[\s\S]*absolute http:\/\/ URL/],
    ['an https URL in a plain request', 'GET https://pkgs.test/x HTTP/1.1\r\nHost: pkgs.test\r\n\r\n', /^HTTP\/1\.1 400[\s\S]*use CONNECT/],
    ['a Host header that lies', 'GET http://pkgs.test:PORT/x HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n', /^HTTP\/1\.1 400[\s\S]*does not match/]
  ])('refuses %s', async (_, bytes, answer) => {
    const before = seen.length
    expect(await exchange(endpoint, bytes.replace('PORT', String(port)))).toMatch(answer)
    expect(seen.length).toBe(before)
  })

  it.each([
    '127.0.0.1',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.1',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::1]',
    '169.254.169.254',
    '0.0.0.0',
    '10.0.0.1',
    '[fe80::1]'
  ])('refuses the IP literal %s', async (host) => {
    const before = seen.length
    expect(await exchange(endpoint, `CONNECT ${host}:${port} HTTP/1.1\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 403[\s\S]*address; Airlock connects there only when an allow rule names it exactly/
    )
    expect(seen.length).toBe(before)
  })

  it('a client that never finishes its request head is cut off; others are served meanwhile', async () => {
    const slow = connect(join(endpoint.socketDir, endpoint.socketName))
    slow.write('CONNECT pkgs.test')
    const closed = new Promise<void>((resolve) => slow.on('close', () => resolve()))
    slow.on('error', () => undefined)
    await works(other)
    await works(endpoint)
    const dripping = setInterval(() => slow.writable && slow.write('x'), 1000)
    await closed
    clearInterval(dripping)
  }, 40_000)

  it('a thousand parallel connections are bounded; the proxy keeps serving', async () => {
    const sockets: Socket[] = []
    for (let i = 0; i < 1000; i++) {
      const socket = connect(join(endpoint.socketDir, endpoint.socketName))
      socket.on('error', () => undefined)
      sockets.push(socket)
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
    const open = sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open').length
    await works(other)
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => setTimeout(resolve, 200))
    await works(endpoint)
    expect(open).toBeLessThan(1000)
  }, 30_000)

  it.each([
    ['no acceptable method', [0x05, 0x01, 0x02], [0x05, 0xff]],
    ['BIND', [0x05, 0x01, 0x00, 0x05, 0x02, 0x00, 0x01, 127, 0, 0, 1, 0, 80], [0x05, 0x00, 0x05, 0x07]],
    ['UDP ASSOCIATE', [0x05, 0x01, 0x00, 0x05, 0x03, 0x00, 0x01, 127, 0, 0, 1, 0, 80], [0x05, 0x00, 0x05, 0x07]],
    ['an unknown address type', [0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x09, 1, 2, 3, 4], [0x05, 0x00, 0x05, 0x08]],
    ['the loopback address', [0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x01, 127, 0, 0, 1, 0, 80], [0x05, 0x00, 0x05, 0x02]],
    ['a name not allowed', [0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x03, 9, ...Buffer.from('evil.test'), 0, 80], [0x05, 0x00, 0x05, 0x02]]
  ])('SOCKS5: refuses %s', async (_, request, answer) => {
    const before = seen.length
    const got = await new Promise<number[]>((resolve) => {
      const socket = connect(join(endpoint.socketDir, endpoint.socketName))
      const bytes: number[] = []
      socket.on('data', (chunk) => bytes.push(...chunk))
      socket.on('close', () => resolve(bytes))
      socket.on('error', () => undefined)
      socket.write(Buffer.from(request))
    })
    expect(got.slice(0, answer.length)).toEqual(answer)
    expect(seen.length).toBe(before)
  })

  it('records each connection for its own endpoint only', async () => {
    take(endpoint)
    take(other)
    await works(endpoint)
    expect(take(endpoint)).toEqual([expect.objectContaining({ host: 'pkgs.test', port, decision: 'allowed', address: '127.0.0.1' })])
    expect(take(other)).toEqual([])
  })

  it('a token endpoint admits only connections opened with the token of a run going on; a windowed one only while a run goes on', async () => {
    const tokened = await proxy.open({ scope: 'session', ownerId: 'c' })
    const windowed = await proxy.open({ scope: 'session', ownerId: 'd' }, { attribution: 'window' })
    try {
      const get = `GET http://pkgs.test:${port}/t HTTP/1.1\r\nHost: pkgs.test:${port}\r\nConnection: close\r\n\r\n`
      const before = seen.length
      expect(await exchange(tokened, get)).toMatch(/^HTTP\/1\.1 403[\s\S]*did not come through its run's bridge/)
      expect(await exchange(tokened, `AIRLOCK-RUN ${randomUUID()}\n${get}`)).toMatch(/^HTTP\/1\.1 403/)
      expect(await exchange(windowed, get)).toMatch(/^HTTP\/1\.1 403[\s\S]*no run of this resource is going on/)
      expect(seen.length).toBe(before)
      const token = randomUUID()
      const done = tokened.track(token)
      expect(await exchange(tokened, `AIRLOCK-RUN ${token}\n${get}`)).toMatch(/^HTTP\/1\.1 200/)
      expect(done()).toEqual([expect.objectContaining({ host: 'pkgs.test', decision: 'allowed' })])
      // Once the run is over its token admits nothing more.
      expect(await exchange(tokened, `AIRLOCK-RUN ${token}\n${get}`)).toMatch(/^HTTP\/1\.1 403/)
      const window = windowed.track(randomUUID())
      expect(await exchange(windowed, get)).toMatch(/^HTTP\/1\.1 200/)
      expect(window()).toEqual([expect.objectContaining({ host: 'pkgs.test', decision: 'allowed' })])
      expect(await exchange(windowed, get)).toMatch(/^HTTP\/1\.1 403/)
    } finally {
      await tokened.close()
      await windowed.close()
    }
  })
})

// IPv6 that carries an IPv4 address (IPv4-compatible, -translated, NAT64, 6to4, Teredo, ISATAP),
// sent by each way in (CONNECT, a plain forward, SOCKS5 with an IPv6 address) to a proxy whose
// operator approves whatever is asked: each is refused as the IPv4 it carries, before anyone is
// asked (an address that looks public must not reach the operator as a harmless question), the
// refusal names that IPv4, and the proxy connects nowhere.
describe('IPv6 that carries IPv4, against an operator who approves everything', () => {
  let dir: ReturnType<typeof makeTempDir>
  let proxy: EgressProxy
  let endpoint: EgressEndpoint
  let done: () => EgressRecord[]
  const asked: string[] = []

  beforeAll(async () => {
    dir = makeTempDir('airlock-egress-carried-')
    proxy = new EgressProxy({
      runDir: join(dir.path, 'run'),
      gate: egressGate({
        rules: () => [],
        pinned: () => undefined,
        agentOf: () => ({ agentId: 'attacker', ask: 'always', approvalTimeoutSeconds: 1 }),
        ask: async ({ host, port }) => {
          asked.push(`${host}:${port}`)
          return true
        },
        lookup: async () => {
          throw new Error('no DNS in this test')
        }
      })
    })
    endpoint = await proxy.open({ scope: 'session', ownerId: 'carried' }, { attribution: 'window' })
    done = endpoint.track(randomUUID())
  })
  afterAll(async () => {
    done?.()
    await endpoint?.close()
    dir?.remove()
  })

  /** Sends raw bytes to the endpoint's socket and reads every byte until the proxy closes. */
  function exchange(bytes: Buffer): Promise<Buffer> {
    return new Promise((resolve) => {
      const socket = connect(join(endpoint.socketDir, endpoint.socketName))
      const chunks: Buffer[] = []
      socket.on('data', (chunk) => chunks.push(chunk))
      socket.on('close', () => resolve(Buffer.concat(chunks)))
      socket.on('error', () => undefined)
      socket.write(bytes)
    })
  }

  it.each([
    ['[::7f00:1]', '127.0.0.1'],
    ['[::127.0.0.1]', '127.0.0.1'],
    ['[::a9fe:a9fe]', '169.254.169.254'],
    ['[::ffff:0:7f00:1]', '127.0.0.1'],
    ['[64:ff9b::7f00:1]', '127.0.0.1'],
    ['[64:ff9b:1::a9fe:a9fe]', '169.254.169.254'],
    ['[2002:7f00:1::]', '127.0.0.1'],
    ['[2001:0:7f00:1::]', '127.0.0.1'],
    ['[2001:0:5db8:d822::80ff:fffe]', '127.0.0.1'],
    ['[2600:1f18::5efe:7f00:1]', '127.0.0.1'],
    ['[2600:1f18::200:5efe:a9fe:a9fe]', '169.254.169.254']
  ])('refuses %s, which carries %s, by CONNECT, GET and SOCKS5 without asking', async (host, carried) => {
    const port = 8080
    const refusal = new RegExp(
      `^HTTP/1\\.1 403[\\s\\S]*${carried.replaceAll('.', '\\.')}[\\s\\S]*address; Airlock connects there only when an allow rule names it exactly`
    )
    expect((await exchange(Buffer.from(`CONNECT ${host}:${port} HTTP/1.1\r\n\r\n`))).toString()).toMatch(refusal)
    expect((await exchange(Buffer.from(`GET http://${host}:${port}/x HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`))).toString()).toMatch(refusal)
    const address = ipaddr.IPv6.parse(host.slice(1, -1)).toByteArray()
    const socks = await exchange(Buffer.from([0x05, 0x01, 0x00, 0x05, 0x01, 0x00, 0x04, ...address, port >> 8, port & 0xff]))
    expect([...socks.subarray(0, 4)]).toEqual([0x05, 0x00, 0x05, 0x02])
    expect(asked).toEqual([])
    const records = done()
    done = endpoint.track(randomUUID())
    expect(records.map((record) => record.decision)).toEqual(['denied', 'denied', 'denied'])
  })
})
