import { connect, type Socket } from 'node:net'
import type { Connection } from './egress-proxy'
import { entryOf } from './egress-records'
import { joinTunnel } from './tunnel'

/** SOCKS5 reply codes (RFC 1928 §6) the proxy answers with. */
const reply = { ok: 0x00, failure: 0x01, notAllowed: 0x02, hostUnreachable: 0x04, refused: 0x05, commandUnsupported: 0x07, addressUnsupported: 0x08 }

/** The most a greeting and a request can take (a 255-byte name and its framing) and how long they may take. */
const bounds = { bytes: 262 + 257, ms: 10_000, idleMs: 300_000 }

/**
 * SOCKS5 `CONNECT` (RFC 1928) without authentication, for TCP that is not HTTP (`ALL_PROXY=socks5h://…`):
 * the same decision as the HTTP proxy (the gate, with the name the client sent: `socks5h`
 * leaves resolution to the proxy), one reply code, then a tunnel to the admitted address. BIND and
 * UDP ASSOCIATE are refused. Each step is bounded in bytes and time; anything malformed ends the connection.
 */
export function serveSocks(client: Socket, first: Buffer, connection: Connection): void {
  let buffered = first
  let stage: 'greeting' | 'request' | 'deciding' = 'greeting'
  const timer = setTimeout(() => client.destroy(), bounds.ms)
  const end = (code: number) => {
    clearTimeout(timer)
    client.end(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]), () => client.destroy())
  }
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    if (buffered.length > bounds.bytes) return client.destroy()
    step()
  }
  const step = () => {
    if (stage === 'greeting') {
      if (buffered.length < 2) return
      const methods = buffered[1]!
      if (buffered[0] !== 0x05 || methods === 0) return client.destroy()
      if (buffered.length < 2 + methods) return
      const offered = buffered.subarray(2, 2 + methods)
      buffered = buffered.subarray(2 + methods)
      if (!offered.includes(0x00)) {
        clearTimeout(timer)
        return void client.end(Buffer.from([0x05, 0xff]), () => client.destroy())
      }
      client.write(Buffer.from([0x05, 0x00]))
      stage = 'request'
    }
    if (stage === 'request') {
      const target = parseRequest(buffered)
      if (target === 'incomplete') return
      if ('code' in target) return end(target.code)
      stage = 'deciding'
      client.off('data', onData)
      client.pause()
      void decide(target.host, target.port, buffered.subarray(target.length))
    }
  }
  const decide = async (host: string, port: number, rest: Buffer) => {
    const admission = await connection.admit(host, port)
    if (!admission.ok) {
      connection.ledger.add(connection.run, entryOf(port, admission))
      return end(reply.notAllowed)
    }
    if (client.destroyed) return
    const upstream = connect({ host: admission.address, port })
    let connected = false
    let entry: { closed(): void } | undefined
    upstream.setTimeout(bounds.ms, () => upstream.destroy(new Error('no answer in time')))
    upstream.once('connect', () => {
      connected = true
      entry = connection.ledger.add(connection.run, entryOf(port, admission), () => ({ up: upstream.bytesWritten, down: upstream.bytesRead }))
      clearTimeout(timer)
      upstream.setTimeout(bounds.idleMs, () => upstream.destroy())
      client.write(Buffer.from([0x05, reply.ok, 0x00, 0x01, 0, 0, 0, 0, 0, 0]))
      if (rest.length > 0) upstream.write(rest)
      joinTunnel(client, upstream, { lingerMs: bounds.idleMs, closed: () => entry?.closed() })
      client.resume()
    })
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected)
        end(
          error.code === 'ECONNREFUSED' ? reply.refused : error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH' ? reply.hostUnreachable : reply.failure
        )
      else client.destroy()
    })
    // Closed before it connected: the other side goes too (once connected, joinTunnel decides).
    client.on('close', () => {
      if (!connected) upstream.destroy()
    })
    upstream.on('close', () => {
      if (!connected) client.destroy()
    })
  }
  client.on('error', () => client.destroy())
  client.on('close', () => clearTimeout(timer))
  client.on('data', onData)
  step()
}

/** The CONNECT request in `bytes`: its target and length, a reply code to refuse with, or `incomplete`. */
function parseRequest(bytes: Buffer): { host: string; port: number; length: number } | { code: number } | 'incomplete' {
  if (bytes.length < 5) return 'incomplete'
  if (bytes[0] !== 0x05) return { code: reply.failure }
  if (bytes[1] !== 0x01) return { code: reply.commandUnsupported }
  const type = bytes[3]
  let host: string
  let at: number
  if (type === 0x01) {
    if (bytes.length < 10) return 'incomplete'
    host = [...bytes.subarray(4, 8)].join('.')
    at = 8
  } else if (type === 0x03) {
    const length = bytes[4]!
    if (length === 0) return { code: reply.failure }
    if (bytes.length < 5 + length + 2) return 'incomplete'
    host = bytes.subarray(5, 5 + length).toString('latin1')
    at = 5 + length
  } else if (type === 0x04) {
    if (bytes.length < 22) return 'incomplete'
    const words: string[] = []
    for (let i = 0; i < 8; i++) words.push(bytes.readUInt16BE(4 + i * 2).toString(16))
    host = `[${words.join(':')}]`
    at = 20
  } else return { code: reply.addressUnsupported }
  return { host, port: bytes.readUInt16BE(at), length: at + 2 }
}
