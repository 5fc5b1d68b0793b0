import { dirname } from 'node:path'
import { egressBridgePort, openDirectoryNoFollow, type EgressEndpoint, type EgressEndpointOptions, type EgressOwner, type EgressPort } from '../../core'

/** Where a proxied sandbox (or a container's bridge) sees its egress socket's directory (bound read-only: enough to connect). */
export const egressMount = '/run/airlock-egress'

/** What the bridge prints once it listens when it runs alone (the Docker sidecar): the provider waits for it. */
export const bridgeReadyLine = 'airlock egress bridge listening'

/**
 * The bridge from a sandbox's loopback `127.0.0.1:3128` to the egress socket bound in from the
 * host. The sandbox keeps its empty network namespace (only loopback), so this is its only way out.
 * Plain node with no module of ours: it runs as the sandbox identity (or, for a container, in the
 * container's network namespace), and whatever the program does to it only breaks that program's
 * own way out. Node 18 is enough (the provisioned images' node).
 *
 * Two ways to run it: with a program (bubblewrap: the first program of each proxied sandbox, which
 * then runs the program and ends with its exit status, signals passed on), and alone (docker: a
 * sidecar container sharing the session container's network namespace, printing `bridgeReadyLine`
 * once it listens). The token, when not `-`, is sent first on each connection so the proxy credits
 * it to that run.
 */
const bridgeSource = `'use strict'
const net = require('net'), os = require('os'), { spawn } = require('child_process')
const [port, socket, run, program, ...args] = process.argv.slice(1)
const server = net.createServer((client) => {
  const upstream = net.connect(socket)
  if (run !== '-') upstream.write('AIRLOCK-RUN ' + run + '\\n')
  client.on('error', () => upstream.destroy())
  upstream.on('error', () => client.destroy())
  client.pipe(upstream)
  upstream.pipe(client)
})
server.on('error', (error) => { process.stderr.write('airlock: the egress bridge could not listen: ' + error.message + '\\n'); process.exit(126) })
server.listen(Number(port), '127.0.0.1', () => {
  if (program === undefined) return process.stdout.write(${JSON.stringify(bridgeReadyLine)} + '\\n')
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

/** The bridge alone (no program, no token: for an endpoint whose runs open windows, see `EgressEndpointOptions`). */
export function standaloneBridgeArgv(nodePath: string, socketName: string): string[] {
  return [nodePath, '--no-warnings', '-e', bridgeSource, String(egressBridgePort), `${egressMount}/${socketName}`, '-']
}

/**
 * The node a sandbox's bridge runs on (the host's own: Airlock's `process.execPath`, Electron's
 * binary run as node), what the sandbox must see of it read-only (its folder, unless the system
 * binds already show it) and the environment that makes Electron's binary act as node.
 */
export function bridgeNode(nodePath = process.execPath): { path: string; readOnly: string[]; env: Record<string, string> } {
  const folder = dirname(nodePath)
  const visible = ['/usr/', '/bin/', '/sbin/', '/lib'].some((prefix) => `${folder}/`.startsWith(prefix))
  return { path: nodePath, readOnly: visible ? [] : [folder], env: process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} }
}

/** A live resource's egress endpoint and its socket's folder opened (no links followed) for a read-only bind at `egressMount`. */
export async function openEgressBind(
  egress: EgressPort,
  owner: EgressOwner,
  options?: EgressEndpointOptions
): Promise<{ endpoint: EgressEndpoint; bind: { fd: number; dest: string; writable: boolean } }> {
  const endpoint = await egress.open(owner, options)
  try {
    return { endpoint, bind: { fd: openDirectoryNoFollow(endpoint.socketDir), dest: egressMount, writable: false } }
  } catch (error) {
    await endpoint.close()
    throw error
  }
}
