import ipaddr from 'ipaddr.js'

/**
 * Which addresses the egress proxy refuses to connect to unless the operator named the host:
 * everything but public unicast (loopback, private, link-local with the cloud metadata address,
 * carrier-grade NAT, unspecified, multicast, broadcast, reserved, and IPv6 forms that embed IPv4).
 *
 * Why ipaddr.js: it parses every notation an attacker can write an address in (decimal
 * `2130706433`, hex `0x7f000001`, octal `0177.0.0.1`, short forms, IPv4-mapped IPv6) and classifies
 * ranges by the registries' tables; a regular expression over text would miss one of them.
 *
 * IPv6 that carries IPv4 is refused exactly when the IPv4 it carries would be, by the IPv4's own
 * range; the refusal names the form and the IPv4. The forms covered:
 * - IPv4-mapped `::ffff:a.b.c.d` and IPv4-compatible `::a.b.c.d` / `::7f00:1` (RFC 4291) *are* their
 *   IPv4 address (`canonical`): every spelling of one address is one address to the rules, and the
 *   proxy connects to the IPv4 it decided on (ipaddr.js itself reads the dotted `::a.b.c.d` as mapped);
 * - IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`,
 *   Teredo `2001::/32` and ISATAP interface ids (`carriedIPv4`) stay IPv6, since a translator or relay
 *   sits between them and the IPv4. Their prefixes but ISATAP's are refused as whole ranges anyway
 *   (ipaddr.js: `rfc6145`, `rfc6052`, `6to4`, `teredo`), so a public IPv4 inside does not open them;
 *   an ISATAP interface id can follow any global prefix, so there the carried IPv4 alone decides.
 */

/** An IPv4 address carried inside an IPv6 one, and the form that carries it (for the refusal's words). */
type CarriedIPv4 = { form: string; address: ipaddr.IPv4 }

const nat64WellKnown = ipaddr.parseCIDR('64:ff9b::/96')
const nat64LocalUse = ipaddr.parseCIDR('64:ff9b:1::/48')
const sixToFour = ipaddr.parseCIDR('2002::/16')
const teredo = ipaddr.parseCIDR('2001::/32')

/** The canonical address when `host` is an IP literal in any notation (IPv6 may be in brackets), else undefined. */
export function ipLiteral(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (!ipaddr.isValid(bare)) return undefined
  return canonical(bare).toString()
}

/** The range an address is in, when it is one the proxy refuses by default; undefined for public unicast. */
export function refusedRange(address: string): string | undefined {
  const parsed = canonical(address)
  if (parsed.kind() === 'ipv6') {
    const refused = carriedIPv4(parsed as ipaddr.IPv6)
      .map((carried) => ({ ...carried, range: carried.address.range() }))
      .filter((carried) => carried.range !== 'unicast')
    // Any refused reading refuses; the reason names the most telling one: a reading of `0.x.x.x`
    // is mostly a guessed position (local-use NAT64) that holds zeros, not an address.
    const telling = refused.find((carried) => carried.range !== 'unspecified') ?? refused[0]
    if (telling) return `${telling.range} (${telling.form} carrying ${telling.address.toString()})`
  }
  const range = parsed.range()
  return range === 'unicast' ? undefined : range
}

/**
 * Every IPv4 address an IPv6 address (not mapped or compatible: see `canonical`) may carry, by form;
 * an address can match several, and all count:
 * - IPv4-translated `::ffff:0:a.b.c.d` (RFC 6145);
 * - NAT64 well-known prefix `64:ff9b::/96` (RFC 6052) and local-use `64:ff9b:1::/48` (RFC 8215),
 *   read at every RFC 6052 prefix length the /48 allows (48, 56, 64, 96): the operator's is unknown;
 * - 6to4 `2002:AABB:CCDD::/48` (RFC 3056): `AABBCCDD`;
 * - Teredo `2001:0::/32` (RFC 4380): the server at bits 32–63, the client (XOR 0xffffffff) at 96–127;
 * - ISATAP interface ids `…:0:5efe:a.b.c.d` under any prefix (RFC 5214; the u/g bits of the first
 *   16 are ignored, so `200:5efe` counts too).
 */
function carriedIPv4(address: ipaddr.IPv6): CarriedIPv4[] {
  const bytes = address.toByteArray()
  const parts = address.parts
  const at = (...indexes: number[]) => new ipaddr.IPv4(indexes.map((index) => bytes[index]!))
  const zero = (from: number, to: number) => parts.slice(from, to).every((part) => part === 0)
  const found: CarriedIPv4[] = []
  if (zero(0, 4) && parts[4] === 0xffff && parts[5] === 0) found.push({ form: 'IPv4-translated IPv6', address: at(12, 13, 14, 15) })
  if (address.match(nat64WellKnown)) found.push({ form: 'NAT64', address: at(12, 13, 14, 15) })
  if (address.match(nat64LocalUse))
    for (const length of [48, 56, 64, 96]) found.push({ form: `local-use NAT64 /${length}`, address: at(...rfc6052Bytes(length)) })
  if (address.match(sixToFour)) found.push({ form: '6to4', address: at(2, 3, 4, 5) })
  if (address.match(teredo)) {
    found.push({ form: 'Teredo server', address: at(4, 5, 6, 7) })
    found.push({ form: 'Teredo client', address: new ipaddr.IPv4([12, 13, 14, 15].map((index) => bytes[index]! ^ 0xff)) })
  }
  if ((parts[4]! & 0xfcff) === 0 && parts[5] === 0x5efe) found.push({ form: 'ISATAP', address: at(12, 13, 14, 15) })
  return found
}

/**
 * An address as the proxy decides on it: IPv4-mapped (`::ffff:0:0/96`, ipaddr.js's `process()`) and
 * IPv4-compatible (`::/96` but `::` and `::1`, IPv6's own unspecified and loopback) IPv6 are their
 * IPv4 address, whichever way they are spelled.
 */
function canonical(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed
  const parts = (parsed as ipaddr.IPv6).parts
  const compatible = parts.slice(0, 6).every((part) => part === 0) && !(parts[6] === 0 && parts[7]! <= 1)
  return compatible ? new ipaddr.IPv4((parsed as ipaddr.IPv6).toByteArray().slice(12)) : parsed
}

/** Where RFC 6052 puts the four IPv4 bytes after a prefix of `length` bits: right after it, skipping byte 8 (bits 64–71 stay zero). */
function rfc6052Bytes(length: number): number[] {
  const indexes: number[] = []
  for (let index = length / 8; indexes.length < 4; index++) if (index !== 8) indexes.push(index)
  return indexes
}
