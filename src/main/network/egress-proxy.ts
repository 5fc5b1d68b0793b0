import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { connect, createServer as createNetServer, type Socket } from 'node:net'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import type { EgressEndpoint, EgressEndpointOptions, EgressOwner, EgressPort, SandboxIdentity } from '../core'
import type { EgressAdmission, EgressGate } from './egress-gate'
import { EgressLedger } from './egress-ledger'
import { entryOf } from './egress-records'
import { serveSocks } from './egress-socks'
import { joinTunnel } from './tunnel'

/** What the proxy is built with. */
export type EgressProxyOptions = {
  /**
   * Where endpoint folders are made (one private directory each, made by `mkdtemp`): a sticky
   * shared directory such as /tmp, or one of Airlock's own. Short, because a unix socket's path
   * holds at most 107 bytes (an Airlock home can be deeper than that allows).
   */
  runDir: string
  /** The start of this proxy's folder names in `runDir` (per Airlock home: the sweep removes only its own). */
  prefix?: string
  gate: EgressGate
  /** Who connects: the socket is given to this identity (the sandbox uid), nobody else may. */
  identity?: SandboxIdentity
  /** Most connections one endpoint holds at once; more are refused. */
  maxConnections?: number
}

/** Bounds against slow or hostile clients. */
const limits = { headersMs: 10_000, connectMs: 10_000, idleMs: 300_000, headerBytes: 16 * 1024, records: 1000 }
const socketName = 'proxy.sock'

/** The longest path a unix socket can be bound at (`sun_path` is 108 bytes with its NUL). */
const maxSocketPathBytes = 107

/**
 * The egress proxy (SPEC §6.5): per live resource an HTTP proxy on a unix socket that only that
 * resource's sandbox can reach, so every connection is attributed to its agent and session.
 * `CONNECT host:port` is tunnelled (TLS passes through, never intercepted); a plain `GET
 * http://host/…` is forwarded to the one address the gate admitted; a connection that opens with
 * SOCKS5's version byte is served as SOCKS5 `CONNECT` (other TCP, `ALL_PROXY=socks5h://…`). Each connection is decided by
 * the gate before anything is resolved or connected, and recorded (host, port, address, decision,
 * rule, bytes each way) for the call that made it. Node's HTTP parser bounds request heads (size
 * and time: slowloris), the server bounds connections, refusals are answered with one clear line.
 */
export class EgressProxy implements EgressPort {
  constructor(private readonly options: EgressProxyOptions) {}

  /**
   * Removes endpoint folders an earlier Airlock process left (it crashed with sandboxes open):
   * their sockets answer nobody. Called once at start-up, before any endpoint opens; returns what it removed.
   */
  sweep(): string[] {
    let names: string[]
    try {
      names = readdirSync(this.options.runDir).filter((name) => name.startsWith(this.prefix))
    } catch {
      return []
    }
    // Only real folders this process's user or its sandbox identity own: in a shared /tmp a name
    // with our prefix may be anyone's (their folders and links are left alone).
    const owners = new Set([process.getuid?.(), this.options.identity?.uid])
    const ours = names.filter((name) => {
      const stat = lstatSync(join(this.options.runDir, name), { throwIfNoEntry: false })
      return stat?.isDirectory() === true && owners.has(stat.uid)
    })
    for (const name of ours) rmSync(join(this.options.runDir, name), { recursive: true, force: true })
    return ours
  }

  private get prefix(): string {
    return this.options.prefix ?? 'egress-'
  }

  async open(owner: EgressOwner, options: EgressEndpointOptions = {}): Promise<EgressEndpoint> {
    const windowed = options.attribution === 'window'
    mkdirSync(this.options.runDir, { recursive: true, mode: 0o711 })
    const socketDir = mkdtempSync(join(this.options.runDir, this.prefix))
    if (Buffer.byteLength(join(socketDir, socketName)) > maxSocketPathBytes) {
      rmSync(socketDir, { recursive: true, force: true })
      throw new Error(
        `The egress socket's path ${join(socketDir, socketName)} is longer than a unix socket allows (${maxSocketPathBytes} bytes); set TMPDIR to a shorter directory.`
      )
    }
    const identity = this.options.identity
    if (identity?.dedicated) chownSync(socketDir, identity.uid, identity.gid)
    const ledger = new EgressLedger()
    const closing = new AbortController()
    const open = new Set<Duplex>()
    const runOf = new WeakMap<Duplex, string>()
    const track = (socket: Duplex) => {
      open.add(socket)
      socket.on('close', () => open.delete(socket))
    }
    /** The connection's own signal (one per socket, however many requests it carries): aborted when it closes (its question to the operator then expires) or the endpoint does. */
    const signals = new WeakMap<Duplex, AbortSignal>()
    const signalOf = (socket: Duplex) => {
      let signal = signals.get(socket)
      if (!signal) {
        const gone = new AbortController()
        socket.once('close', () => gone.abort({ airlock: 'requester_gone' }))
        signals.set(socket, (signal = AbortSignal.any([closing.signal, gone.signal])))
      }
      return signal
    }
    const contextOf = (socket: Duplex): Connection => {
      const signal = signalOf(socket)
      return { admit: (host, port) => this.options.gate(owner, host, port, signal), ledger, run: runOf.get(socket) }
    }
    // The HTTP server never listens itself (the listener below hands it connections), so its own
    // header timers do not run: each request head gets a deadline here instead (slowloris).
    const server = createServer({ maxHeaderSize: limits.headerBytes })
    const deadlines = new WeakMap<Duplex, NodeJS.Timeout>()
    const awaitHead = (socket: Duplex) => deadlines.set(socket, setTimeout(() => socket.destroy(), limits.headersMs).unref())
    const headArrived = (socket: Duplex) => clearTimeout(deadlines.get(socket))
    server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
      headArrived(client)
      void tunnel(req, client, head, contextOf(client))
    })
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      headArrived(req.socket)
      // Keep-alive: the next request's head gets its own deadline once this one is answered.
      res.on('finish', () => awaitHead(req.socket))
      void forward(req, res, contextOf(req.socket))
    })
    server.on('clientError', (_error, socket: Duplex) => {
      // Ended and then destroyed: a client that keeps sending must not hold the connection half-open.
      if (socket.writable)
        socket.end(
          'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nAirlock egress: malformed or too slow proxy request\n',
          () => socket.destroy()
        )
      else socket.destroy()
    })
    // The socket's listener reads the run token the bridge sends first (if any) and credits the
    // connection to a run going on (by its token, or the endpoint's window), or refuses it; then the
    // first byte: SOCKS5 (0x05) is served here, anything else goes to the HTTP server with it put back.
    const listener = createNetServer((socket: Socket) => {
      track(socket)
      socket.setTimeout(limits.headersMs, () => socket.destroy())
      socket.on('error', () => socket.destroy())
      readRunToken(socket, (run, rest) => {
        socket.setTimeout(0)
        const credited = windowed ? ledger.current() : run !== undefined && ledger.expects(run) ? run : undefined
        if (credited === undefined) {
          return refuseUncredited(
            socket,
            rest,
            windowed
              ? 'no run of this resource is going on: connections are admitted only while one is'
              : "this connection did not come through its run's bridge (no run token)"
          )
        }
        runOf.set(socket, credited)
        if (rest[0] === 0x05) return serveSocks(socket, rest, contextOf(socket))
        socket.pause()
        socket.unshift(rest)
        awaitHead(socket)
        server.emit('connection', socket)
        socket.resume()
      })
    })
    listener.maxConnections = this.options.maxConnections ?? 64
    const socketPath = join(socketDir, socketName)
    try {
      await new Promise<void>((resolve, reject) => {
        listener.once('error', reject)
        listener.listen(socketPath, () => resolve())
      })
      chmodSync(socketPath, 0o600)
      if (identity?.dedicated) chownSync(socketPath, identity.uid, identity.gid)
    } catch (error) {
      // Nothing of an endpoint that never opened is left behind.
      listener.close()
      rmSync(socketDir, { recursive: true, force: true })
      throw error
    }
    return {
      socketDir,
      socketName,
      track: (token) => {
        ledger.expect(token)
        return () => ledger.drain(token)
      },
      close: async () => {
        closing.abort()
        for (const socket of open) socket.destroy()
        server.closeAllConnections()
        const closed = new Promise<void>((resolve) => listener.close(() => resolve()))
        // At once, not after the last connection ends: a process that exits meanwhile leaves nothing.
        rmSync(socketDir, { recursive: true, force: true })
        await closed
      }
    }
  }
}

/** What a connection's handler needs: the decision (with the connection's own signal), and where to record it. */
export type Connection = { admit: (host: string, port: number) => Promise<EgressAdmission>; ledger: EgressLedger; run?: string }

/** Refuses a connection no run is going on for: in SOCKS5's words or HTTP's, by its first byte. */
function refuseUncredited(socket: Socket, first: Buffer, reason: string): void {
  // SOCKS5: "no acceptable methods"; HTTP: 403 with the reason.
  const answer =
    first[0] === 0x05 ? Buffer.from([0x05, 0xff]) : `HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nAirlock egress: ${reason}\n`
  socket.end(answer, () => socket.destroy())
}

/** The bridge's first line on each connection: `AIRLOCK-RUN <token>\n`. */
const tokenPrefix = Buffer.from('AIRLOCK-RUN ')
const tokenPattern = /^[0-9a-f-]{36}$/

/** Reads an optional run token line, then hands over the first bytes after it (waiting for at least one). */
function readRunToken(socket: Socket, then: (run: string | undefined, rest: Buffer) => void): void {
  let buffered = Buffer.alloc(0)
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    const prefixed = buffered.subarray(0, tokenPrefix.length).equals(tokenPrefix.subarray(0, Math.min(buffered.length, tokenPrefix.length)))
    if (prefixed && buffered.length <= tokenPrefix.length) return
    let run: string | undefined
    let rest = buffered
    if (prefixed) {
      const newline = buffered.indexOf(0x0a)
      if (newline === -1) {
        if (buffered.length > 100) socket.destroy()
        return
      }
      const token = buffered.subarray(tokenPrefix.length, newline).toString('latin1')
      run = tokenPattern.test(token) ? token : undefined
      rest = buffered.subarray(newline + 1)
      if (rest.length === 0) {
        // The token came alone: wait for the client's first bytes.
        socket.off('data', onData)
        socket.once('data', (next: Buffer) => then(run, next))
        return
      }
    }
    socket.off('data', onData)
    then(run, rest)
  }
  socket.on('data', onData)
}

/** `CONNECT host:port`: decided, then a raw tunnel to the admitted address. */
async function tunnel(req: IncomingMessage, client: Duplex, head: Buffer, connection: Connection): Promise<void> {
  client.on('error', () => client.destroy())
  const target = authority(req.url ?? '')
  if (!target) return refuse(client, 400, 'a CONNECT target is host:port')
  const admission = await connection.admit(target.host, target.port)
  if (!admission.ok) {
    connection.ledger.add(connection.run, entryOf(target.port, admission))
    return refuse(client, 403, admission.reason)
  }
  if (client.destroyed) return // gone while it was decided: nobody to connect for
  const upstream = connect({ host: admission.address, port: target.port })
  let entry: { closed(): void } | undefined
  upstream.setTimeout(limits.connectMs, () => upstream.destroy(new Error('no answer in time')))
  upstream.once('connect', () => {
    entry = connection.ledger.add(connection.run, entryOf(target.port, admission), () => ({ up: upstream.bytesWritten, down: upstream.bytesRead }))
    upstream.setTimeout(limits.idleMs, () => upstream.destroy())
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
    if (head.length > 0) upstream.write(head)
    joinTunnel(client, upstream, { lingerMs: limits.idleMs, closed: () => entry?.closed() })
  })
  upstream.on('error', (error) => {
    if (!entry) refuse(client, 502, `${admission.host}:${target.port} (${admission.address}) could not be reached: ${error.message}`)
    else client.destroy()
  })
  // Closed before it connected: the other side goes too (once connected, joinTunnel decides).
  client.on('close', () => {
    if (!entry) upstream.destroy()
  })
  upstream.on('close', () => {
    if (!entry) client.destroy()
  })
}

/** A plain `http://` request in absolute form: decided, then sent to the admitted address with the same Host. */
async function forward(req: IncomingMessage, res: ServerResponse, connection: Connection): Promise<void> {
  let url: URL
  try {
    url = new URL(req.url ?? '')
  } catch {
    return reply(res, 400, 'a proxy request names an absolute http:// URL (https goes through CONNECT)')
  }
  if (url.protocol !== 'http:') return reply(res, 400, `${url.protocol} is not proxied as a plain request; use CONNECT`)
  const hostHeader = req.headers.host
  if (hostHeader !== undefined && hostOf(hostHeader) !== url.host)
    return reply(res, 400, `the Host header (${hostHeader.slice(0, 80)}) does not match the URL (${url.host})`)
  const port = url.port ? Number(url.port) : 80
  const admission = await connection.admit(url.hostname, port)
  if (!admission.ok) {
    connection.ledger.add(connection.run, entryOf(port, admission))
    return reply(res, 403, admission.reason)
  }
  if (req.socket.destroyed) return
  const headers: Record<string, string | string[] | undefined> = { ...req.headers, connection: 'close' }
  delete headers['proxy-connection']
  delete headers['proxy-authorization']
  let up = 0
  let down = 0
  const entry = connection.ledger.add(connection.run, entryOf(port, admission), () => ({ up, down }))
  const upstream = httpRequest({
    host: admission.address,
    port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    timeout: limits.connectMs
  })
  upstream.on('timeout', () => upstream.destroy(new Error('no answer in time')))
  upstream.on('response', (response) => {
    upstream.setTimeout(limits.idleMs)
    res.writeHead(response.statusCode ?? 502, response.headers)
    response.on('data', (chunk: Buffer) => (down += chunk.length))
    response.pipe(res)
    response.on('end', () => entry.closed())
  })
  upstream.on('error', (error) => {
    entry.closed()
    if (!res.headersSent) reply(res, 502, `${admission.host}:${port} could not be reached: ${error.message}`)
    else res.destroy()
  })
  req.on('data', (chunk: Buffer) => (up += chunk.length))
  req.pipe(upstream)
}

/** A Host header as the URL parser writes a host (IPv6 and case normalised), or undefined when it is none. */
function hostOf(header: string): string | undefined {
  try {
    const parsed = new URL(`http://${header}`)
    return parsed.username || parsed.password || parsed.pathname !== '/' || parsed.search || parsed.hash ? undefined : parsed.host
  } catch {
    return undefined
  }
}

/** `host:port` of a CONNECT line (IPv6 in brackets), or undefined. */
function authority(target: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]{2,45}\]|[A-Za-z0-9._-]{1,253}):(\d{1,5})$/.exec(target)
  if (!match) return undefined
  const port = Number(match[2])
  return port >= 1 && port <= 65535 ? { host: match[1]!, port } : undefined
}

function refuse(client: Duplex, status: 400 | 403 | 502, reason: string): void {
  const text = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[status]
  const body = `Airlock egress: ${reason}\n`
  if (client.writable)
    client.end(
      `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      () => client.destroy()
    )
  else client.destroy()
}

function reply(res: ServerResponse, status: 400 | 403 | 502, reason: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
  res.end(`Airlock egress: ${reason}\n`)
}
