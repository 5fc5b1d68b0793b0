import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import type { EgressRecord } from '@shared/network'
import type { EgressEndpoint, EgressOwner, EgressPort, SandboxIdentity } from '../core'
import type { EgressAdmission, EgressGate } from './egress-gate'

/** What the proxy is built with. */
export type EgressProxyOptions = {
  /** Where endpoint sockets live (one private directory each). */
  runDir: string
  gate: EgressGate
  /** Who connects: the socket is given to this identity (the sandbox uid), nobody else may. */
  identity?: SandboxIdentity
  /** Most connections one endpoint holds at once; more are refused. */
  maxConnections?: number
}

/** Bounds against slow or hostile clients. */
const limits = { headersMs: 10_000, connectMs: 10_000, idleMs: 300_000, headerBytes: 16 * 1024, records: 1000 }
const socketName = 'proxy.sock'

/**
 * The egress proxy (SPEC §6.5): per live resource an HTTP proxy on a unix socket that only that
 * resource's sandbox can reach, so every connection is attributed to its agent and session.
 * `CONNECT host:port` is tunnelled (TLS passes through, never intercepted); a plain `GET
 * http://host/…` is forwarded to the one address the gate admitted. Each connection is decided by
 * the gate before anything is resolved or connected, and recorded (host, port, address, decision,
 * rule, bytes each way) for the call that made it. Node's HTTP parser bounds request heads (size
 * and time: slowloris), the server bounds connections, refusals are answered with one clear line.
 */
export class EgressProxy implements EgressPort {
  constructor(private readonly options: EgressProxyOptions) {}

  async open(owner: EgressOwner): Promise<EgressEndpoint> {
    mkdirSync(this.options.runDir, { recursive: true, mode: 0o711 })
    const socketDir = mkdtempSync(join(this.options.runDir, 'egress-'))
    const identity = this.options.identity
    if (identity?.dedicated) chownSync(socketDir, identity.uid, identity.gid)
    const records: EgressRecord[] = []
    const record = (entry: EgressRecord) => {
      if (records.length < limits.records) records.push(entry)
    }
    const closing = new AbortController()
    const tunnels = new Set<Duplex>()
    const server = createServer({ headersTimeout: limits.headersMs, requestTimeout: limits.headersMs * 3, maxHeaderSize: limits.headerBytes, connectionsCheckingInterval: 1000 })
    server.maxConnections = this.options.maxConnections ?? 64
    const admit = (host: string, port: number) => this.options.gate(owner, host, port, closing.signal)
    server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
      tunnels.add(client)
      client.on('close', () => tunnels.delete(client))
      void tunnel(req, client, head, admit, record)
    })
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void forward(req, res, admit, record))
    server.on('clientError', (_error, socket: Duplex) => {
      // Ended and then destroyed: a client that keeps sending must not hold the connection half-open.
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nAirlock egress: malformed or too slow proxy request\n', () => socket.destroy())
      else socket.destroy()
    })
    const socketPath = join(socketDir, socketName)
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(socketPath, () => resolve())
    })
    chmodSync(socketPath, 0o600)
    if (identity?.dedicated) chownSync(socketPath, identity.uid, identity.gid)
    return {
      socketDir,
      socketName,
      drain: () => records.splice(0),
      close: async () => {
        closing.abort()
        for (const socket of tunnels) socket.destroy()
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
        rmSync(socketDir, { recursive: true, force: true })
      }
    }
  }
}

type Admit = (host: string, port: number) => Promise<EgressAdmission>
type Recorder = (entry: EgressRecord) => void

/** `CONNECT host:port`: decided, then a raw tunnel to the admitted address. */
async function tunnel(req: IncomingMessage, client: Duplex, head: Buffer, admit: Admit, record: Recorder): Promise<void> {
  client.on('error', () => client.destroy())
  const target = authority(req.url ?? '')
  if (!target) return refuse(client, 400, 'a CONNECT target is host:port')
  const admission = await admit(target.host, target.port)
  if (!admission.ok) {
    record(entryOf(target.port, admission))
    return refuse(client, 403, admission.reason)
  }
  const upstream = connect({ host: admission.address, port: target.port })
  let connected = false
  upstream.setTimeout(limits.connectMs, () => upstream.destroy(new Error('no answer in time')))
  upstream.once('connect', () => {
    connected = true
    upstream.setTimeout(limits.idleMs, () => upstream.destroy())
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
    if (head.length > 0) upstream.write(head)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  upstream.on('error', (error) => {
    if (!connected) refuse(client, 502, `${admission.host}:${target.port} (${admission.address}) could not be reached: ${error.message}`)
    else client.destroy()
  })
  client.on('close', () => upstream.destroy())
  upstream.on('close', () => {
    client.destroy()
    record({ ...entryOf(target.port, admission), bytesUp: upstream.bytesWritten, bytesDown: upstream.bytesRead })
  })
}

/** A plain `http://` request in absolute form: decided, then sent to the admitted address with the same Host. */
async function forward(req: IncomingMessage, res: ServerResponse, admit: Admit, record: Recorder): Promise<void> {
  let url: URL
  try {
    url = new URL(req.url ?? '')
  } catch {
    return reply(res, 400, 'a proxy request names an absolute http:// URL (https goes through CONNECT)')
  }
  if (url.protocol !== 'http:') return reply(res, 400, `${url.protocol} is not proxied as a plain request; use CONNECT`)
  const hostHeader = req.headers.host
  if (hostHeader !== undefined && hostOf(hostHeader) !== url.host) return reply(res, 400, `the Host header (${hostHeader.slice(0, 80)}) does not match the URL (${url.host})`)
  const port = url.port ? Number(url.port) : 80
  const admission = await admit(url.hostname, port)
  if (!admission.ok) {
    record(entryOf(port, admission))
    return reply(res, 403, admission.reason)
  }
  const headers: Record<string, string | string[] | undefined> = { ...req.headers, connection: 'close' }
  delete headers['proxy-connection']
  delete headers['proxy-authorization']
  let up = 0
  let down = 0
  const upstream = httpRequest({ host: admission.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false, timeout: limits.connectMs })
  upstream.on('timeout', () => upstream.destroy(new Error('no answer in time')))
  upstream.on('response', (response) => {
    upstream.setTimeout(limits.idleMs)
    res.writeHead(response.statusCode ?? 502, response.headers)
    response.on('data', (chunk: Buffer) => (down += chunk.length))
    response.pipe(res)
    response.on('end', () => record({ ...entryOf(port, admission), bytesUp: up, bytesDown: down }))
  })
  upstream.on('error', (error) => {
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

function entryOf(port: number, admission: EgressAdmission): EgressRecord {
  return {
    host: admission.host,
    port,
    ...(admission.ok ? { address: admission.address } : { reason: admission.reason }),
    decision: admission.ok ? 'allowed' : 'denied',
    ...(admission.rule ? { rule: admission.rule } : {}),
    bytesUp: 0,
    bytesDown: 0,
    at: new Date().toISOString()
  }
}

function refuse(client: Duplex, status: 400 | 403 | 502, reason: string): void {
  const text = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[status]
  const body = `Airlock egress: ${reason}\n`
  if (client.writable) client.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => client.destroy())
  else client.destroy()
}

function reply(res: ServerResponse, status: 400 | 403 | 502, reason: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
  res.end(`Airlock egress: ${reason}\n`)
}

