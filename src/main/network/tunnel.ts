import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/**
 * Joins a client's stream and its upstream connection both ways (a CONNECT tunnel, a SOCKS5
 * connection). A side that ends normally ends the other once what was written to it is flushed —
 * never destroys it with bytes still buffered (a download's last kilobytes were lost when the
 * server closed first and the tunnel was torn down at once); a side that fails or is aborted ends
 * the other at once. A side left open after the other ended is destroyed after `lingerMs` (a
 * client that stops reading holds nothing for good). `closed` runs when the upstream is gone.
 */
export function joinTunnel(client: Duplex, upstream: Socket, options: { lingerMs: number; closed(): void }): void {
  client.pipe(upstream)
  upstream.pipe(client)
  const settle = (gone: Duplex, other: Duplex) => {
    if (!gone.readableEnded) other.destroy()
    else if (!other.destroyed) setTimeout(() => other.destroy(), options.lingerMs).unref()
  }
  client.on('close', () => settle(client, upstream))
  upstream.on('close', () => {
    settle(upstream, client)
    options.closed()
  })
}
