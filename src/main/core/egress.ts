import type { EgressRecord } from '@shared/network'

/**
 * The egress proxy as providers see it (SPEC §6.5): a live resource whose policy says
 * `network: "proxy"` opens one endpoint, a unix socket its sandbox reaches through a bind, and
 * every connection through it is decided and recorded for that resource's owner. The proxy itself
 * (rules, approvals, resolution) lives above the core; providers only carry its socket in.
 */
export interface EgressPort {
  open(owner: EgressOwner, options?: EgressEndpointOptions): Promise<EgressEndpoint>
}

/**
 * Whose connections an endpoint carries: the handle's scope and owner (a session, or one action
 * call), and for an upstream MCP server its name (what the server holds counts with the session's
 * taint: its label, SPEC §6.3).
 */
export type EgressOwner = { scope: string; ownerId?: string; actionCallId?: string; mcpServer?: string }

/**
 * How an endpoint credits connections to runs (`track`):
 * - `token` (default): each connection opens with `AIRLOCK-RUN <token>` of a run going on (the
 *   bubblewrap bridge sends it); any other is refused. Runs that overlap are kept apart.
 * - `window`: no token; a connection is admitted only while a run is going on and credited to it
 *   (to the first of them to end, when several overlap); one while none is, is refused. For
 *   resources whose bridge outlives a run: a container's (runs one at a time), an MCP server's.
 */
export type EgressEndpointOptions = { attribution?: 'token' | 'window' }

/** One live resource's way out. */
export type EgressEndpoint = {
  /** A directory holding only the socket: what a sandbox gets bound (read-only is enough to connect). */
  socketDir: string
  /** The socket's file name inside `socketDir`. */
  socketName: string
  /**
   * Starts a run: its connections are kept apart (by `token`, which its bridge sends first on each
   * of them, or by the window it opens); the returned function ends the run and takes what it did.
   */
  track(token: string): () => EgressRecord[]
  /** Stops accepting, ends the open connections and removes the socket. */
  close(): Promise<void>
}

/** The loopback port inside a sandbox where its bridge to the egress socket listens. */
export const egressBridgePort = 3128

/** What a program is told about its proxy: HTTP(S)_PROXY (HTTP), ALL_PROXY (SOCKS5) and NO_PROXY, both spellings. */
export function egressEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${egressBridgePort}`
  const env: Record<string, string> = {}
  for (const name of ['http_proxy', 'https_proxy']) {
    env[name] = url
    env[name.toUpperCase()] = url
  }
  // The same port speaks SOCKS5 (other TCP); socks5h: names are resolved by the proxy, never in the sandbox.
  env.all_proxy = `socks5h://127.0.0.1:${egressBridgePort}`
  env.ALL_PROXY = env.all_proxy
  env.no_proxy = ''
  env.NO_PROXY = ''
  return env
}
