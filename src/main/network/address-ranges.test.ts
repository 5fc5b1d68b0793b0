import { describe, expect, it } from 'vitest'
import { ipLiteral, refusedRange } from './address-ranges'

// IPv6 forms that carry an IPv4 address, the way an attacker writes them to reach the host's
// loopback, the metadata service or a private network through the egress proxy: each is refused
// as its IPv4 would be, and the refusal names the IPv4 it carries.
describe('IPv6 that carries IPv4', () => {
  it.each([
    // IPv4-compatible (::/96): the address is its IPv4 (ipaddr.js already reads `::a.b.c.d` that way).
    ['[::7f00:1]', '127.0.0.1', 'loopback'],
    ['[::127.0.0.1]', '127.0.0.1', 'loopback'],
    ['[0:0:0:0:0:0:a9fe:a9fe]', '169.254.169.254', 'linkLocal'],
    ['[::a00:1]', '10.0.0.1', 'private'],
    ['[::6440:1]', '100.64.0.1', 'carrierGradeNat'],
    ['[::e000:1]', '224.0.0.1', 'multicast'],
    ['[::2]', '0.0.0.2', 'unspecified'],
    // IPv4-mapped (already handled; kept beside its siblings).
    ['[::ffff:7f00:1]', '127.0.0.1', 'loopback'],
    ['[::ffff:169.254.169.254]', '169.254.169.254', 'linkLocal'],
    // IPv4-translated (RFC 6145).
    ['[::ffff:0:7f00:1]', '::ffff:0:7f00:1', 'loopback (IPv4-translated IPv6 carrying 127.0.0.1)'],
    ['[::ffff:0:169.254.169.254]', '::ffff:0:a9fe:a9fe', 'linkLocal (IPv4-translated IPv6 carrying 169.254.169.254)'],
    // NAT64, well-known and local-use prefixes (RFC 6052, RFC 8215).
    ['[64:ff9b::7f00:1]', '64:ff9b::7f00:1', 'loopback (NAT64 carrying 127.0.0.1)'],
    ['[64:ff9b::10.0.0.1]', '64:ff9b::a00:1', 'private (NAT64 carrying 10.0.0.1)'],
    ['[64:ff9b:1::a9fe:a9fe]', '64:ff9b:1::a9fe:a9fe', 'linkLocal (local-use NAT64 /96 carrying 169.254.169.254)'],
    ['[64:ff9b:1:7f00:0:100::]', '64:ff9b:1:7f00:0:100::', 'loopback (local-use NAT64 /48 carrying 127.0.0.1)'],
    // 6to4 (RFC 3056).
    ['[2002:7f00:1::]', '2002:7f00:1::', 'loopback (6to4 carrying 127.0.0.1)'],
    ['[2002:a9fe:a9fe::1]', '2002:a9fe:a9fe::1', 'linkLocal (6to4 carrying 169.254.169.254)'],
    // Teredo (RFC 4380): the server in the clear, the client XOR 0xffffffff.
    ['[2001:0:7f00:1::]', '2001:0:7f00:1::', 'loopback (Teredo server carrying 127.0.0.1)'],
    ['[2001:0:5db8:d822::f5ff:fffe]', '2001:0:5db8:d822::f5ff:fffe', 'private (Teredo client carrying 10.0.0.1)'],
    // ISATAP interface ids under a global prefix (RFC 5214), with and without the u bit.
    ['[2600:1f18::5efe:7f00:1]', '2600:1f18::5efe:7f00:1', 'loopback (ISATAP carrying 127.0.0.1)'],
    ['[2600:1f18::200:5efe:a9fe:a9fe]', '2600:1f18::200:5efe:a9fe:a9fe', 'linkLocal (ISATAP carrying 169.254.169.254)'],
    ['[2600:1f18::5efe:10.1.2.3]', '2600:1f18::5efe:a01:203', 'private (ISATAP carrying 10.1.2.3)']
  ])('%s is the address %s, refused as %s', (host, address, range) => {
    expect(ipLiteral(host)).toBe(address)
    expect(refusedRange(ipLiteral(host)!)).toBe(range)
    // The same decision for an address that came from DNS, unbracketed and not yet canonical.
    expect(refusedRange(host.slice(1, -1))).toBe(range)
  })

  it.each([
    // IPv6's own loopback and unspecified are not IPv4-compatible addresses.
    ['[::1]', '::1', 'loopback'],
    ['[::]', '::', 'unspecified'],
    // A public IPv4 inside a translator's or relay's prefix: the whole prefix stays refused.
    ['[::ffff:0:5db8:d822]', '::ffff:0:5db8:d822', 'rfc6145'],
    ['[64:ff9b::5db8:d822]', '64:ff9b::5db8:d822', 'rfc6052'],
    ['[2002:5db8:d822::1]', '2002:5db8:d822::1', '6to4'],
    ['[2001:0:5db8:d822::a247:27dd]', '2001:0:5db8:d822::a247:27dd', 'teredo']
  ])('%s (%s) keeps its IPv6 range %s', (host, address, range) => {
    expect(ipLiteral(host)).toBe(address)
    expect(refusedRange(address)).toBe(range)
  })

  it.each([
    ['[::5db8:d822]', '93.184.216.34'],
    ['[2600:1f18::5efe:5db8:d822]', '2600:1f18::5efe:5db8:d822'],
    ['[2600:1f18::1]', '2600:1f18::1'],
    ['[2606:4700::6810:85e5]', '2606:4700::6810:85e5']
  ])('%s carries no refused IPv4 and is public (%s)', (host, address) => {
    expect(ipLiteral(host)).toBe(address)
    expect(refusedRange(address)).toBeUndefined()
  })
})
