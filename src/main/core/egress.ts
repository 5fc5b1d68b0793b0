import type { EgressRecord } from '@shared/network'

/**
 * The egress proxy as providers see it (SPEC §6.5): a live resource whose policy says
 * `network: "proxy"` opens one endpoint, a unix socket its sandbox reaches through a bind, and
 * every connection through it is decided and recorded for that resource's owner. The proxy itself
 * (rules, approvals, resolution) lives above the core; providers only carry its socket in.
 */
export interface EgressPort {
  open(owner: EgressOwner): Promise<EgressEndpoint>
}

/** Whose connections an endpoint carries: the handle's scope and owner (a session, or one action call). */
export type EgressOwner = { scope: string; ownerId?: string; actionCallId?: string }

/** One live resource's way out. */
export type EgressEndpoint = {
  /** A directory holding only the socket: what a sandbox gets bound (read-only is enough to connect). */
  socketDir: string
  /** The socket's file name inside `socketDir`. */
  socketName: string
  /**
   * Starts keeping a run's connections apart (the run's bridge sends `token` first on each of
   * them); the returned function takes what that run did, once it is over.
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
