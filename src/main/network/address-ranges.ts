import ipaddr from 'ipaddr.js'

/**
 * Which addresses the egress proxy refuses to connect to unless the operator named the host:
 * everything but public unicast (loopback, private, link-local with the cloud metadata address,
 * carrier-grade NAT, unspecified, multicast, broadcast, reserved, and IPv6 forms that embed IPv4).
 *
 * Why ipaddr.js: it parses every notation an attacker can write an address in (decimal
 * `2130706433`, hex `0x7f000001`, octal `0177.0.0.1`, short forms, IPv4-mapped IPv6) and classifies
 * ranges by the registries' tables; a regular expression over text would miss one of them.
 */

/** The canonical address when `host` is an IP literal in any notation (IPv6 may be in brackets), else undefined. */
export function ipLiteral(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (!ipaddr.isValid(bare)) return undefined
  // process(): an IPv4-mapped IPv6 address is its IPv4 address.
  return ipaddr.process(bare).toString()
}

/** The range an address is in, when it is one the proxy refuses by default; undefined for public unicast. */
export function refusedRange(address: string): string | undefined {
  const range = ipaddr.process(address).range()
  return range === 'unicast' ? undefined : range
}
