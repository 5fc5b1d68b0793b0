import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { egressGate } from './egress-gate'
import { EgressProxy } from './egress-proxy'

// A server that sends a large answer and closes at once: every byte
// must arrive through the proxy's tunnels (the CONNECT tunnel lost its last kilobytes when the
// upstream's close tore the client side down with bytes still buffered).
const size = 64 * 1024 * 1024
const serverScript = `
const net = require('net'); const mb = Number(process.argv[1]); const payload = Buffer.alloc(1024 * 1024, 7)
const server = net.createServer((socket) => {
  let sent = 0
  const pump = () => { while (sent < mb) { sent++; if (!socket.write(payload)) return void socket.once('drain', pump) } socket.end() }
  pump()
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))`

let dir: ReturnType<typeof makeTempDir>
let proxy: EgressProxy
let server: ChildProcess
let port: number
let socketPath: string
let closeEndpoint: () => Promise<void>
let endRun: () => void

beforeEach(async () => {
  dir = makeTempDir('airlock-tunnel-')
  // In a process of its own, as a remote server is: it writes as fast as the proxy reads, then closes.
  server = spawn(process.execPath, ['-e', serverScript, String(size / 1024 / 1024)], { stdio: ['ignore', 'pipe', 'inherit'] })
  port = await new Promise<number>((resolve) => server.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))))
  proxy = new EgressProxy({
    runDir: join(dir.path, 'run'),
    gate: egressGate({
      rules: () => [{ id: 'allow', agentId: null, decision: 'allow', host: 'pkgs.test', createdAt: '2026-01-01T00:00:00Z' }],
      pinned: () => '127.0.0.1',
      agentOf: () => ({ agentId: 'tunnel', ask: 'never', approvalTimeoutSeconds: 1 }),
      ask: async () => false
    })
  })
  const endpoint = await proxy.open({ scope: 'session', ownerId: 'tunnel' }, { attribution: 'window' })
  endRun = endpoint.track('tunnel-run')
  socketPath = join(endpoint.socketDir, endpoint.socketName)
  closeEndpoint = () => endpoint.close()
})
afterEach(async () => {
  endRun()
  await closeEndpoint()
  server.kill()
  dir.remove()
})

/**
 * A client in a process of its own (as a sandboxed program is), a little slower than the proxy: it sends `hello`,
 * skips `skip` bytes of the proxy's answer, and counts the rest until the proxy closes.
 */
function received(hello: Buffer[], skip: number): Promise<number> {
  const script = `
const net = require('net'); const [path, skip, ...hello] = process.argv.slice(1)
let bytes = 0; let step = 0
const s = net.connect(path, () => s.write(Buffer.from(hello[step++], 'hex')))
s.on('data', (chunk) => {
  bytes += chunk.length
  if (step < hello.length) s.write(Buffer.from(hello[step++], 'hex'))
  // A reader a little slower than the proxy, so its writes queue behind a full socket buffer.
  for (const end = process.hrtime.bigint() + 300000n; process.hrtime.bigint() < end;);
})
s.on('close', () => console.log(bytes - Number(skip)))`
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-e', script, socketPath, String(skip), ...hello.map((part) => part.toString('hex'))], { timeout: 60_000 }, (error, stdout) =>
      error ? reject(error) : resolve(Number(stdout.trim()))
    )
  })
}

describe('tunnels through the egress proxy', () => {
  it('CONNECT: a large answer from a server that closes at once arrives whole, every time', async () => {
    const established = 'HTTP/1.1 200 Connection Established\r\n\r\n'
    for (let round = 0; round < 4; round++)
      expect(await received([Buffer.from(`CONNECT pkgs.test:${port} HTTP/1.1\r\nHost: pkgs.test:${port}\r\n\r\n`)], established.length), `round ${round}`).toBe(
        size
      )
  })

  it('SOCKS5: the same, whole', async () => {
    const host = Buffer.from('pkgs.test')
    // Greeting (no authentication), then CONNECT to a name; 2 + 10 bytes of replies before the data.
    const request = Buffer.concat([Buffer.from([0x05, 0x01, 0x00, 0x03, host.length]), host, Buffer.from([port >> 8, port & 0xff])])
    for (let round = 0; round < 4; round++) expect(await received([Buffer.from([0x05, 0x01, 0x00]), request], 12), `round ${round}`).toBe(size)
  })
})
