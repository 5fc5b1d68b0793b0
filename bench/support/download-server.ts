import { spawn } from 'node:child_process'

/** The loopback server's program: answers every request with `mb` MiB (one repeated MiB); prints its port. */
const serverScript = `
const http = require('http'); const mb = Number(process.argv[1]); const payload = Buffer.alloc(1024 * 1024, 7)
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-length': String(payload.length * mb) })
  let sent = 0
  const pump = () => { while (sent < mb) { sent++; if (!res.write(payload)) return void res.once('drain', pump) } res.end() }
  pump()
})
server.listen(0, '127.0.0.1', () => console.log(server.address().port))
`

/**
 * A loopback HTTP server in a process of its own (as a remote server would be: only what is
 * measured shares the bench's process) that answers every request with `mb` MiB.
 */
export async function startDownloadServer(mb: number): Promise<{ port: number; stop(): void }> {
  const server = spawn(process.execPath, ['-e', serverScript, String(mb)], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())))
    server.once('exit', (code) => reject(new Error(`the download server exited (${code})`)))
  })
  return { port, stop: () => server.kill() }
}
