import { randomUUID } from 'node:crypto'
import { lookup as dnsLookup } from 'node:dns/promises'
import { createServer, type Server } from 'node:http'
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EgressRecord, NetRule } from '@shared/network'
import type { EgressEndpoint } from '../../src/main/core'
import { EgressProxy, egressGate } from '../../src/main/network'
import { makeTempDir } from '../support/temp-home'

// Red-team of the egress proxy on its own socket (SPEC §6.5), as a hostile sandbox speaks to it:
// keep-alive pipelining and smuggling, URL/Host confusions, port confusion, deny-rule evasion by
// spelling, wildcard rules and approvals against names that resolve to private addresses, DNS
// leaks before the decision, memory under backpressure, lineage flooding, abrupt clients. Every
// test asserts the SECURE behaviour; a failing one is a hole.

type Hit = { server: string; host?: string; url?: string }

describe('red team: the egress proxy on its raw socket', { timeout: 60_000 }, () => {
  let dir: ReturnType<typeof makeTempDir>
  let allowed: Server // the one admitted endpoint: pkgs.test:PA
  let secret: Server // a loopback service of the host nobody admitted
  let sink: NetServer // accepts and never reads
  let flood: NetServer // writes forever
  let PA = 0
  let PB = 0
  let PS = 0
  let PF = 0
  let sinkOpened = 0
  const hits: Hit[] = []
  const looked: string[] = []
  const asked: { host: string; port: number; signal: AbortSignal }[] = []
  let proxy: EgressProxy
  const ep: Record<string, EgressEndpoint> = {}
  const secretHits = () => hits.filter((hit) => hit.server === 'secret').length

  const resolveMap: Record<string, string[]> = {
    'loop.wild.test': ['127.0.0.1'],
    'mapped.wild.test': ['::ffff:127.0.0.1'],
    'meta.wild.test': ['169.254.169.254'],
    'zero.wild.test': ['0.0.0.0'],
    'v6loop.wild.test': ['::1'],
    'compat.wild.test': ['::127.0.0.1'],
    'nat64.wild.test': ['64:ff9b::7f00:1'],
    'sixtofour.wild.test': ['2002:7f00:1::1'],
    'ula.wild.test': ['fd00::1'],
    'translated.wild.test': ['::ffff:0:7f00:1'],
    'mixed.wild.test': ['127.0.0.1', '::1'],
    'rebind.ask.test': ['127.0.0.1'],
    'meta.ask.test': ['169.254.169.254'],
    'asked-exact.test': ['127.0.0.1']
  }

  beforeAll(async () => {
    const listen = async (server: Server | NetServer) => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return (server.address() as { port: number }).port
    }
    allowed = createServer((req, res) => {
      hits.push({ server: 'allowed', host: req.headers.host, url: req.url })
      req.resume()
      req.on('end', () => res.end('allowed-ok'))
    })
    allowed.on('upgrade', (req, socket) => {
      hits.push({ server: 'allowed', host: req.headers.host, url: `upgrade ${req.url}` })
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: Upgrade\r\n\r\n')
      socket.on('data', () => undefined)
      socket.on('error', () => undefined)
    })
    secret = createServer((req, res) => {
      hits.push({ server: 'secret', host: req.headers.host, url: req.url })
      res.end('SECRET')
    })
    secret.on('connection', () => hits.push({ server: 'secret' }))
    sink = createNetServer((socket) => {
      sinkOpened++
      socket.pause()
      socket.on('error', () => undefined)
    })
    flood = createNetServer((socket) => {
      socket.on('error', () => undefined)
      const chunk = Buffer.alloc(1 << 16, 120)
      const pump = () => {
        while (!socket.destroyed && socket.write(chunk));
      }
      socket.on('drain', pump)
      pump()
    })
    PA = await listen(allowed)
    PB = await listen(secret)
    PS = await listen(sink)
    PF = await listen(flood)
    const rules: NetRule[] = [
      { id: 'allow-pkgs-PA', agentId: null, decision: 'allow', host: 'pkgs.test', port: PA, createdAt: '2026-01-01T00:00:00Z' },
      { id: 'deny-blocked', agentId: null, decision: 'deny', host: 'blocked.test', createdAt: '2026-01-01T00:00:00Z' },
      { id: 'allow-wild', agentId: 'wild', decision: 'allow', host: '*.wild.test', createdAt: '2026-01-01T00:00:00Z' },
      { id: 'allow-all-test', agentId: 'wild', decision: 'allow', host: '*.test', createdAt: '2026-01-01T00:00:00Z' },
      { id: 'allow-sink', agentId: null, decision: 'allow', host: 'sink.test', createdAt: '2026-01-01T00:00:00Z' },
      { id: 'allow-flood', agentId: null, decision: 'allow', host: 'flood.test', createdAt: '2026-01-01T00:00:00Z' },
      // an exact rule naming a host that the resolver answers slowly (as real DNS does)
      // the operator wants to be asked about this exact name every time (not a statement that it may be private)
      { id: 'ask-exact', agentId: null, decision: 'ask', host: 'asked-exact.test', createdAt: '2026-01-01T00:00:00Z' },
      { id: 'allow-slowdns', agentId: null, decision: 'allow', host: 'slowdns.test', createdAt: '2026-01-01T00:00:00Z' }
    ]
    const pinned: Record<string, string> = {
      'pkgs.test': '127.0.0.1',
      'blocked.test': '127.0.0.1',
      'sink.test': '127.0.0.1',
      'flood.test': '127.0.0.1',
      'late.ask.test': '127.0.0.1'
    }
    dir = makeTempDir('airlock-redteam-raw-')
    proxy = new EgressProxy({
      runDir: join(dir.path, 'run'),
      maxConnections: 64,
      gate: egressGate({
        rules: () => rules,
        pinned: (name) => pinned[name],
        agentOf: (owner) => {
          if (owner.ownerId === 'wild') return { agentId: 'wild', ask: 'never', approvalTimeoutSeconds: 5 }
          if (owner.ownerId === 'asker') return { agentId: 'asker', ask: 'always', approvalTimeoutSeconds: 5 }
          return { agentId: 'attacker', ask: 'never', approvalTimeoutSeconds: 5 }
        },
        // The operator approves ONCE whatever an "asker" connection asks about (not a rule).
        ask: async ({ host, port, signal }) => {
          asked.push({ host, port, signal })
          if (host.startsWith('hang.')) return await new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(false)))
          // the operator takes a moment, then approves (the client may be gone by then)
          if (host.startsWith('late.')) return await new Promise<boolean>((resolve) => setTimeout(() => resolve(!signal.aborted), 400))
          return true
        },
        lookup: async (host) => {
          looked.push(host)
          if (host === 'slowdns.test') return await new Promise<string[]>((resolve) => setTimeout(() => resolve(['127.0.0.1']), 300))
          if (resolveMap[host]) return resolveMap[host]!
          // Numeric spellings resolve the way getaddrinfo does (inet_aton), without any DNS query.
          if (/^[0-9a-fx.]+$/i.test(host)) return (await dnsLookup(host, { all: true })).map((entry) => entry.address)
          throw new Error(`ENOTFOUND ${host}`)
        }
      })
    })
    // Windowed, with a run always going on: these attacks are on what the proxy parses and decides.
    for (const owner of ['attacker', 'wild', 'asker', 'other']) {
      ep[owner] = await proxy.open({ scope: 'session', ownerId: owner }, { attribution: 'window' })
      runs.set(owner, ep[owner]!.track(randomUUID()))
    }
  })

  afterAll(async () => {
    for (const endpoint of Object.values(ep)) await endpoint.close().catch(() => undefined)
    for (const server of [allowed, secret, sink, flood]) server?.close()
    dir?.remove()
  })

  /** The run going on at each endpoint; `take` ends it (its records) and starts the next. */
  const runs = new Map<string, () => EgressRecord[]>()
  const take = (owner: string) => {
    const records = runs.get(owner)!()
    runs.set(owner, ep[owner]!.track(randomUUID()))
    return records
  }

  const open = (owner: string): Socket => {
    const socket = connect(join(ep[owner]!.socketDir, ep[owner]!.socketName))
    socket.on('error', () => undefined)
    return socket
  }
  /** Sends raw bytes and reads until the proxy closes (or `ms` pass). */
  function exchange(owner: string, bytes: string | string[], ms = 3000): Promise<string> {
    return new Promise((resolve) => {
      const socket = open(owner)
      let text = ''
      const timer = setTimeout(() => {
        socket.destroy()
        resolve(text)
      }, ms)
      socket.on('data', (chunk) => (text += chunk.toString('latin1')))
      socket.on('close', () => {
        clearTimeout(timer)
        resolve(text)
      })
      const parts = Array.isArray(bytes) ? bytes : [bytes]
      let i = 0
      const next = () => {
        if (i >= parts.length || socket.destroyed) return
        socket.write(parts[i++]!)
        setTimeout(next, 150)
      }
      socket.on('connect', next)
    })
  }
  const fill = (text: string) => text.replaceAll('PA', String(PA)).replaceAll('PB', String(PB))

  describe('(e) keep-alive, smuggling, request-target confusion', () => {
    it.each([
      [
        'a pipelined second request to a denied host',
        'GET http://pkgs.test:PA/one HTTP/1.1\r\nHost: pkgs.test:PA\r\n\r\nGET http://blocked.test:PB/two HTTP/1.1\r\nHost: blocked.test:PB\r\n\r\n'
      ],
      [
        'a pipelined second request to a port the rule does not cover',
        'GET http://pkgs.test:PA/one HTTP/1.1\r\nHost: pkgs.test:PA\r\n\r\nGET http://pkgs.test:PB/two HTTP/1.1\r\nHost: pkgs.test:PB\r\n\r\n'
      ],
      [
        'a pipelined second request to an IP literal',
        'GET http://pkgs.test:PA/one HTTP/1.1\r\nHost: pkgs.test:PA\r\n\r\nGET http://127.0.0.1:PB/two HTTP/1.1\r\nHost: 127.0.0.1:PB\r\n\r\n'
      ],
      [
        'CL+TE smuggling',
        'POST http://pkgs.test:PA/one HTTP/1.1\r\nHost: pkgs.test:PA\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET http://127.0.0.1:PB/smuggled HTTP/1.1\r\nHost: 127.0.0.1:PB\r\n\r\n'
      ],
      [
        'TE obfuscation',
        'POST http://pkgs.test:PA/one HTTP/1.1\r\nHost: pkgs.test:PA\r\nTransfer-Encoding: chunked, identity\r\nContent-Length: 90\r\n\r\n0\r\n\r\nGET http://pkgs.test:PB/smuggled HTTP/1.1\r\nHost: pkgs.test:PB\r\n\r\n'
      ],
      [
        'a chunked body hiding a request',
        'POST http://pkgs.test:PA/one HTTP/1.1\r\nHost: pkgs.test:PA\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET http://pkgs.test:PB/after-chunked HTTP/1.1\r\nHost: pkgs.test:PB\r\n\r\n'
      ],
      [
        'Expect: 100-continue then a second request',
        'POST http://pkgs.test:PA/one HTTP/1.1\r\nHost: pkgs.test:PA\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nokGET http://pkgs.test:PB/two HTTP/1.1\r\nHost: pkgs.test:PB\r\n\r\n'
      ],
      [
        'an Upgrade that turns the forward into a raw pipe, then a request for another port',
        [
          'GET http://pkgs.test:PA/up HTTP/1.1\r\nHost: pkgs.test:PA\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n',
          'GET http://pkgs.test:PB/after-upgrade HTTP/1.1\r\nHost: pkgs.test:PB\r\n\r\n'
        ]
      ],
      ['userinfo in the absolute URL', 'GET http://pkgs.test:PA@127.0.0.1:PB/userinfo HTTP/1.1\r\nHost: 127.0.0.1:PB\r\n\r\n'],
      ['a fragment before @', 'GET http://127.0.0.1:PB#@pkgs.test:PA/ HTTP/1.1\r\nHost: pkgs.test:PA\r\n\r\n'],
      ['a backslash before @', 'GET http://pkgs.test:PA\\@127.0.0.1:PB/ HTTP/1.1\r\nHost: pkgs.test:PA\r\n\r\n'],
      ['two Host headers', 'GET http://pkgs.test:PA/x HTTP/1.1\r\nHost: pkgs.test:PA\r\nHost: 127.0.0.1:PB\r\n\r\n'],
      [
        'CONNECT with a Host header naming the secret service',
        'CONNECT pkgs.test:PA HTTP/1.1\r\nHost: 127.0.0.1:PB\r\n\r\nGET / HTTP/1.1\r\nHost: 127.0.0.1:PB\r\n\r\n'
      ],
      ['CONNECT to the admitted host on another port', 'CONNECT pkgs.test:PB HTTP/1.1\r\nHost: pkgs.test:PB\r\n\r\n'],
      ['CONNECT to the admitted host with a padded port', 'CONNECT pkgs.test:0PB HTTP/1.1\r\n\r\n'],
      ['a tunnel then a second CONNECT inside it', 'CONNECT pkgs.test:PA HTTP/1.1\r\n\r\nCONNECT 127.0.0.1:PB HTTP/1.1\r\n\r\n'],
      ['an absolute URL without a port and a Host with the secret port', 'GET http://pkgs.test/x HTTP/1.1\r\nHost: pkgs.test:PB\r\n\r\n'],
      ['HTTP/1.0 with an absolute URL to the secret', 'GET http://127.0.0.1:PB/ HTTP/1.0\r\n\r\n'],
      ['OPTIONS * with a Host header', 'OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:PB\r\n\r\n'],
      [
        'an origin-form with a Host header to the admitted name but absolute-form later',
        'GET /x HTTP/1.1\r\nHost: pkgs.test:PA\r\n\r\nGET http://127.0.0.1:PB/ HTTP/1.1\r\nHost: 127.0.0.1:PB\r\n\r\n'
      ],
      ['SOCKS5 greeting', '\x05\x01\x00\x05\x01\x00\x01\x7f\x00\x00\x01' + String.fromCharCode(0, 0)]
    ])('%s never reaches the secret service', async (_, bytes) => {
      const before = secretHits()
      await exchange('attacker', Array.isArray(bytes) ? bytes.map(fill) : fill(bytes), 2500)
      expect(hits.filter((hit) => hit.server === 'secret')).toHaveLength(before)
      expect(secretHits()).toBe(before)
    })

    it('a pipelined request to another port of the admitted name is decided again (not forwarded on the old upstream as if admitted)', async () => {
      const before = hits.length
      const answer = await exchange(
        'attacker',
        fill('GET http://pkgs.test:PA/one HTTP/1.1\r\nHost: pkgs.test:PA\r\n\r\nGET http://pkgs.test:PB/two HTTP/1.1\r\nHost: pkgs.test:PB\r\n\r\n'),
        2500
      )
      // the second request is not carried to anyone under the first admission
      expect(hits.slice(before).map((hit) => hit.url)).not.toContain('/two')
      expect(answer).toMatch(/allowed-ok/)
    })
  })

  describe('(a) deny evasion by spelling, suffix confusion, DNS leaks', () => {
    it.each(['blocked.test.', 'BLOCKED.TEST', 'Blocked.Test.', 'blocked.test..'])(
      'the global deny on blocked.test holds for %s (agent has allow *.test)',
      async (host) => {
        const beforeHits = hits.length
        const beforeLooked = looked.length
        const answer = await exchange('wild', `GET http://${host}:${PA}/evade HTTP/1.1\r\nHost: ${host}:${PA}\r\n\r\n`)
        expect(answer).toMatch(/^HTTP\/1\.1 (400|403)/)
        expect(hits.slice(beforeHits)).toEqual([])
        expect(looked.slice(beforeLooked).filter((name) => name.toLowerCase().startsWith('blocked'))).toEqual([])
        const tunnel = await exchange('wild', `CONNECT ${host}:${PA} HTTP/1.1\r\n\r\n`)
        expect(tunnel).toMatch(/^HTTP\/1\.1 (400|403)/)
      }
    )

    it.each(['wild.test.evil', 'evilwild.test', 'x.wild.test.evil', 'wild.test'])(
      'the agent rule *.wild.test does not cover %s (attacker never-asked agent)',
      async (host) => {
        // use the attacker endpoint: it has no rules at all, so anything but a refusal is a leak of wild's rule
        const beforeLooked = looked.length
        expect(await exchange('attacker', `CONNECT ${host}:443 HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/)
        expect(looked.slice(beforeLooked)).toEqual([])
      }
    )

    it('a refused name is never sent to DNS (no exfiltration through lookups)', async () => {
      const beforeLooked = looked.length
      for (const host of ['c2VjcmV0LWRhdGE.exfil.test', 'blocked.test', 'sub.blocked.test.x']) {
        expect(await exchange('attacker', `CONNECT ${host}:443 HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/)
        expect(await exchange('attacker', `GET http://${host}/ HTTP/1.1\r\nHost: ${host}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/)
      }
      expect(looked.slice(beforeLooked)).toEqual([])
    })
  })

  describe('(a) names and literals that land on private addresses', () => {
    it.each(Object.keys(resolveMap).filter((host) => host.endsWith('.wild.test')))(
      'a wildcard allow does not admit %s, which resolves to a refused address',
      async (host) => {
        const before = hits.length
        const answer = await exchange('wild', `CONNECT ${host}:${PB} HTTP/1.1\r\n\r\n`)
        expect(answer).toMatch(/^HTTP\/1\.1 403/)
        expect(hits.slice(before)).toEqual([])
      }
    )

    it.each(['rebind.ask.test', 'meta.ask.test'])(
      'an operator approval ONCE (not a rule) does not admit %s, which resolves to a refused address',
      async (host) => {
        const before = hits.length
        const answer = await exchange('asker', `CONNECT ${host}:${PB} HTTP/1.1\r\n\r\n`)
        expect(asked.map((entry) => entry.host)).toContain(host)
        expect(answer).toMatch(/^HTTP\/1\.1 403/)
        expect(hits.slice(before)).toEqual([])
      }
    )

    it('an exact ASK rule approved once does not admit a name that resolves to loopback', async () => {
      const before = hits.length
      const answer = await exchange('asker', `CONNECT asked-exact.test:${PB} HTTP/1.1\r\n\r\nGET /via-ask-rule HTTP/1.1\r\nHost: asked-exact.test\r\n\r\n`)
      expect(asked.map((entry) => entry.host)).toContain('asked-exact.test')
      expect(answer).toMatch(/^HTTP\/1\.1 403/)
      expect(hits.slice(before)).toEqual([])
    })

    it.each([
      '127.0.0.1.',
      '0',
      '0x7f.1',
      '017700000001',
      '127.000.000.001',
      '0x7F000001',
      '0x7f.0x0.0x0.0x1',
      '127.0.1',
      '0177.1',
      '[::]',
      '[::127.0.0.1]',
      '[0:0:0:0:0:ffff:127.0.0.1]',
      '[::ffff:a9fe:a9fe]',
      '[64:ff9b::7f00:1]',
      '[fc00::1]',
      '[fe80::1%25lo]',
      '[::ffff:0:7f00:1]',
      '[2002:7f00:1::1]',
      '[0::1]',
      '[0000:0000:0000:0000:0000:0000:0000:0001]',
      '[::1%lo]',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '[ff02::1]',
      '192.168.0.1',
      '172.16.0.1',
      '169.254.169.254.',
      '0251.0376.0251.0376',
      '2852039166'
    ])('the IP spelling %s is refused and never connected', async (host) => {
      const before = hits.length
      const tunnel = await exchange('attacker', `CONNECT ${host}:${PB} HTTP/1.1\r\n\r\n`)
      expect(tunnel).toMatch(/^HTTP\/1\.1 (400|403)/)
      const plain = await exchange('attacker', `GET http://${host}:${PB}/ HTTP/1.1\r\nHost: ${host}:${PB}\r\n\r\n`)
      expect(plain).toMatch(/^HTTP\/1\.1 (400|403)/)
      // even for an agent whose rules allow every *.test name and which is never asked
      expect(await exchange('wild', `CONNECT ${host}:${PB} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 (400|403)/)
      expect(hits.slice(before)).toEqual([])
    })
  })

  describe('(c) the host side under pressure', () => {
    it('a request head of 4 MB with no end is cut off without buffering it', async () => {
      const socket = open('attacker')
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
      socket.write('GET http://pkgs.test/ HTTP/1.1\r\nX: ')
      let written = 0
      const big = 'a'.repeat(1 << 16)
      while (written < 4 << 20 && !socket.destroyed) {
        if (!socket.write(big))
          await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), new Promise((resolve) => setTimeout(resolve, 500))])
        written += big.length
        if (socket.destroyed || socket.closed) break
      }
      await new Promise((resolve) => setTimeout(resolve, 300))
      const closed = socket.destroyed || socket.closed || socket.readableEnded
      socket.destroy()
      expect(closed).toBe(true)
    })

    it('a tunnel to an upstream that never reads does not grow the host process memory without bound', async () => {
      const socket = open('attacker')
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
      socket.write(`CONNECT sink.test:${PS} HTTP/1.1\r\n\r\n`)
      await new Promise<void>((resolve) => socket.once('data', () => resolve()))
      global.gc?.()
      const before = process.memoryUsage().rss
      const chunk = Buffer.alloc(1 << 16, 97)
      let sent = 0
      const deadline = Date.now() + 6000
      while (sent < 300 << 20 && Date.now() < deadline && !socket.destroyed) {
        if (!socket.write(chunk))
          await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), new Promise((resolve) => setTimeout(resolve, 200))])
        else sent += chunk.length
      }
      const grown = process.memoryUsage().rss - before
      socket.destroy()
      // With backpressure honoured the proxy holds a few socket buffers, not what the client pushed.
      expect(grown).toBeLessThan(96 << 20)
    })

    it('an upstream that floods a client that never reads does not grow the host process memory without bound', async () => {
      const socket = open('attacker')
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
      socket.write(`CONNECT flood.test:${PF} HTTP/1.1\r\n\r\n`)
      await new Promise<void>((resolve) => socket.once('data', () => resolve()))
      socket.pause()
      const before = process.memoryUsage().rss
      await new Promise((resolve) => setTimeout(resolve, 4000))
      const grown = process.memoryUsage().rss - before
      socket.destroy()
      expect(grown).toBeLessThan(96 << 20)
    })

    it('a plain forward of an endless response to a client that never reads does not grow memory', async () => {
      const socket = open('attacker')
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
      socket.write(`GET http://flood.test:${PF}/ HTTP/1.1\r\nHost: flood.test:${PF}\r\n\r\n`)
      socket.pause()
      const before = process.memoryUsage().rss
      await new Promise((resolve) => setTimeout(resolve, 3000))
      const grown = process.memoryUsage().rss - before
      socket.destroy()
      expect(grown).toBeLessThan(96 << 20)
    })

    it('a client that vanishes while the operator is asked withdraws the question (its signal aborts)', async () => {
      const socket = open('asker')
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
      socket.write('CONNECT hang.ask.test:443 HTTP/1.1\r\n\r\n')
      await expect.poll(() => asked.find((entry) => entry.host === 'hang.ask.test'), { timeout: 3000 }).toBeDefined()
      socket.destroy()
      const entry = asked.find((item) => item.host === 'hang.ask.test')!
      await expect.poll(() => entry.signal.aborted, { timeout: 3000 }).toBe(true)
    })

    const sinkConnections = () => new Promise<number>((resolve) => sink.getConnections((_, count) => resolve(count)))

    it.each([
      ['its name resolves', 'attacker', 'slowdns.test'],
      ['the operator decides', 'asker', 'late.ask.test']
    ])('a client that vanishes while %s leaves no upstream connection open behind it', async (_, owner, host) => {
      const before = await sinkConnections()
      for (let i = 0; i < 20; i++) {
        const socket = open(owner)
        socket.on('connect', () => {
          socket.write(`CONNECT ${host}:${PS} HTTP/1.1\r\n\r\n`)
          setTimeout(() => socket.destroy(), 50)
        })
      }
      const openedBefore = sinkOpened
      await new Promise((resolve) => setTimeout(resolve, 2000))
      // Observed (low): the upstream IS opened after the client left (sinkOpened - openedBefore === 20),
      // then torn down at once; what must hold is that none stays open.
      expect(sinkOpened - openedBefore).toBeLessThanOrEqual(20)
      // Each of these would be held open (up to the 300 s idle bound) to the admitted host, uncounted
      // by maxConnections and untouched by the endpoint's close: a way to exhaust the host's descriptors.
      expect((await sinkConnections()) - before).toBe(0)
    })

    it('abrupt clients and upstreams do not crash the proxy; it keeps serving', async () => {
      // reset right after CONNECT, mid-ask, mid-tunnel, after the upstream closed
      for (let i = 0; i < 20; i++) {
        const a = open('attacker')
        a.on('connect', () => {
          a.write(`CONNECT pkgs.test:${PA} HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n`)
          a.destroy()
        })
        const b = open('asker')
        b.on('connect', () => {
          b.write(`CONNECT x${i}.ask.test:443 HTTP/1.1\r\n\r\n`)
          setTimeout(() => b.destroy(), 5)
        })
        const c = open('attacker')
        c.on('connect', () => c.end(`GET http://pkgs.test:${PA}/half HTTP/1.1\r\nHost: pkgs.test:${PA}\r\nContent-Length: 100\r\n\r\nabc`))
      }
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(await exchange('other', `GET http://pkgs.test:${PA}/alive HTTP/1.1\r\nHost: pkgs.test:${PA}\r\nConnection: close\r\n\r\n`)).toMatch(
        /^HTTP\/1\.1 200[\s\S]*allowed-ok/
      )
    })
  })

  describe('(c) lineage cannot be hidden or forged', () => {
    it('an allowed connection is still recorded after 1200 refused ones in the same run', async () => {
      take('attacker')
      const refusals: Promise<string>[] = []
      for (let i = 0; i < 1200; i++) {
        refusals.push(exchange('attacker', `CONNECT n${i}.noise.test:443 HTTP/1.1\r\n\r\n`, 3000))
        if (refusals.length % 40 === 0) await Promise.all(refusals.splice(0))
      }
      await Promise.all(refusals)
      expect(await exchange('attacker', `GET http://pkgs.test:${PA}/hidden HTTP/1.1\r\nHost: pkgs.test:${PA}\r\nConnection: close\r\n\r\n`)).toMatch(
        /allowed-ok/
      )
      const records = take('attacker')
      expect(records.filter((record) => record.decision === 'allowed' && record.host === 'pkgs.test')).toHaveLength(1)
    }, 90_000)

    it("records are the endpoint owner's: nothing the client sends changes the host or attribution", async () => {
      take('other')
      take('attacker')
      await exchange(
        'attacker',
        `GET http://pkgs.test:${PA}/x HTTP/1.1\r\nHost: pkgs.test:${PA}\r\nX-Airlock-Agent: other\r\nProxy-Authorization: Basic b3RoZXI6b3RoZXI=\r\nConnection: close\r\n\r\n`
      )
      expect(take('other')).toEqual([])
      expect(take('attacker')).toEqual([expect.objectContaining({ host: 'pkgs.test', port: PA, decision: 'allowed' })])
    })
  })
})
