import { egressBridgePort } from '../../core'

/** Where a proxied sandbox sees its egress socket's directory (bound read-only: enough to connect). */
export const egressMount = '/run/airlock-egress'

/**
 * The first program of a sandbox with `network: "proxy"`. The sandbox keeps its empty network
 * namespace (only loopback); this bridge listens on `127.0.0.1:3128` inside it and carries each
 * connection to the egress socket bound in from the host (each one opened by the run's token, so
 * its call is credited with it), then runs the program and ends with its exit status (signals passed on). Plain node with no module of ours: it runs as the sandbox
 * identity, and whatever the program does to it only breaks that program's own way out.
 */
const bridgeSource = `'use strict'
const net = require('net'), os = require('os'), { spawn } = require('child_process')
const [port, socket, run, program, ...args] = process.argv.slice(1)
const server = net.createServer((client) => {
  const upstream = net.connect(socket)
  upstream.write('AIRLOCK-RUN ' + run + '\\n')
  client.on('error', () => upstream.destroy())
  upstream.on('error', () => client.destroy())
  client.pipe(upstream)
  upstream.pipe(client)
})
server.on('error', (error) => { process.stderr.write('airlock: the egress bridge could not listen: ' + error.message + '\\n'); process.exit(126) })
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(program, args, { stdio: 'inherit' })
  child.on('error', (error) => { process.stderr.write('airlock: ' + program + ': ' + error.message + '\\n'); process.exit(127) })
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code === null ? 128 + (os.constants.signals[signal] || 9) : code))
})
`

/** `argv` run behind the bridge to the socket `socketName` in `egressMount`, by the node at `nodePath`, for the run `token`. */
export function bridgedArgv(nodePath: string, socketName: string, token: string, argv: readonly string[]): string[] {
  return [nodePath, '--no-warnings', '-e', bridgeSource, String(egressBridgePort), `${egressMount}/${socketName}`, token, ...argv]
}
