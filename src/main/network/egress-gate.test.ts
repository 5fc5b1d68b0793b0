import { describe, expect, it } from 'vitest'
import type { NetRule } from '@shared/network'
import { ipLiteral, refusedRange } from './address-ranges'
import { egressGate, type EgressAgent } from './egress-gate'

const agent: EgressAgent = { agentId: 'coder', sessionId: 's1', ask: 'on_risk', approvalTimeoutSeconds: 60 }
const owner = { scope: 'session', ownerId: 's1' }
const rule = (decision: NetRule['decision'], host: string, extra: Partial<NetRule> = {}): NetRule => ({
  id: `r-${host}-${decision}`,
  agentId: null,
  decision,
  host,
  createdAt: '2026-01-01T00:00:00Z',
  ...extra
})

/** A gate over fixed rules, pins and a resolver map; records what was asked and looked up. */
function gateWith(options: {
  rules?: NetRule[]
  pins?: Record<string, string>
  names?: Record<string, string[]>
  approve?: boolean
  ask?: EgressAgent['ask']
  role?: string
  writeDown?: (host: string) => string | undefined
}) {
  const downOf = (host: string) => {
    const reason = options.writeDown?.(host)
    return reason ? { carried: 'CONFIDENTIAL' as const, label: 'PUBLIC' as const, reason } : undefined
  }
  const asked: string[] = []
  const looked: string[] = []
  const gate = egressGate({
    rules: () => options.rules ?? [],
    pinned: (name) => options.pins?.[name],
    agentOf: () => ({ ...agent, ask: options.ask ?? agent.ask, ...(options.role ? { role: options.role } : {}) }),
    ...(options.writeDown ? { writeDown: (_agent: EgressAgent, _owner: unknown, host: string) => downOf(host) } : {}),
    ask: async ({ host, port, writeDown }) => {
      asked.push(`${host}:${port}${writeDown ? ` (${writeDown.reason})` : ''}`)
      return options.approve ?? false
    },
    lookup: async (host) => {
      looked.push(host)
      const found = options.names?.[host]
      if (!found) throw new Error('ENOTFOUND')
      return found
    }
  })
  return { admit: (host: string, port = 443) => gate(owner, host, port, new AbortController().signal), asked, looked }
}

describe('egress addresses', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', 'loopback'],
    ['0x7f000001', '127.0.0.1', 'loopback'],
    ['2130706433', '127.0.0.1', 'loopback'],
    ['0177.0.0.1', '127.0.0.1', 'loopback'],
    ['[::ffff:127.0.0.1]', '127.0.0.1', 'loopback'],
    ['[::1]', '::1', 'loopback'],
    ['169.254.169.254', '169.254.169.254', 'linkLocal'],
    ['10.0.0.1', '10.0.0.1', 'private'],
    ['0.0.0.0', '0.0.0.0', 'unspecified'],
    ['[fd00::1]', 'fd00::1', 'uniqueLocal'],
    ['100.64.0.1', '100.64.0.1', 'carrierGradeNat']
  ])('%s is the address %s in the refused range %s', (host, address, range) => {
    expect(ipLiteral(host)).toBe(address)
    expect(refusedRange(ipLiteral(host)!)).toBe(range)
  })

  it('a public address is not refused; a name is not a literal', () => {
    expect(refusedRange('93.184.216.34')).toBeUndefined()
    expect(ipLiteral('pypi.org')).toBeUndefined()
  })
})

describe('the egress gate', () => {
  it.each(['169.254.169.254', '127.0.0.1', '[::ffff:127.0.0.1]', '0x7f000001', '0.0.0.0', '[::1]'])(
    'refuses %s without a rule, before asking or resolving anything',
    async (host) => {
      const { admit, asked, looked } = gateWith({ approve: true })
      const admission = await admit(host, 80)
      expect(admission).toMatchObject({ ok: false, reason: expect.stringMatching(/address; Airlock connects there only when an allow rule names it exactly/) })
      expect([asked, looked]).toEqual([[], []])
    }
  )

  it('refuses a name that resolves into a private range (through the resolver map), even once approved', async () => {
    const { admit, asked, looked } = gateWith({ approve: true, names: { 'internal.test': ['10.0.0.1'] } })
    expect(await admit('internal.test')).toMatchObject({ ok: false, reason: expect.stringMatching(/resolves to 10\.0\.0\.1, a private address/) })
    expect([asked, looked]).toEqual([['internal.test:443'], ['internal.test']])
  })

  it.each([
    ['::7f00:1', /resolves to ::7f00:1, a loopback address/],
    ['64:ff9b::a9fe:a9fe', /a linkLocal \(NAT64 carrying 169\.254\.169\.254\) address/],
    ['2600:1f18::5efe:a00:1', /a private \(ISATAP carrying 10\.0\.0\.1\) address/]
  ])('refuses a name whose DNS answer is IPv6 carrying a refused IPv4 (%s), even once approved', async (answer, reason) => {
    const { admit } = gateWith({ approve: true, names: { 'carried.test': ['93.184.216.34', answer] } })
    expect(await admit('carried.test')).toMatchObject({ ok: false, reason: expect.stringMatching(reason) })
  })

  it('a name with one public and one private address is refused (no partial rebinding)', async () => {
    const { admit } = gateWith({ rules: [rule('allow', '*.example.test')], names: { 'a.example.test': ['93.184.216.34', '127.0.0.1'] } })
    expect(await admit('a.example.test')).toMatchObject({ ok: false, reason: expect.stringMatching(/127\.0\.0\.1, a loopback address/) })
  })

  it('a deny rule refuses before any lookup; deny wins over an allow', async () => {
    const { admit, looked, asked } = gateWith({
      rules: [rule('allow', 'pypi.org'), rule('deny', '*.org', { agentId: 'coder' })],
      names: { 'pypi.org': ['151.101.0.223'] }
    })
    expect(await admit('pypi.org')).toMatchObject({ ok: false, rule: 'r-*.org-deny', reason: expect.stringMatching(/denied by deny \*\.org/) })
    expect([looked, asked]).toEqual([[], []])
  })

  it('an allow rule admits the address it resolved (no ask); the port must match when the rule names one', async () => {
    const { admit, asked } = gateWith({ rules: [rule('allow', 'pypi.org', { port: 443 })], names: { 'pypi.org': ['151.101.0.223'] } })
    expect(await admit('PyPI.org.')).toEqual({ ok: true, host: 'pypi.org', address: '151.101.0.223', rule: 'r-pypi.org-allow' })
    expect(asked).toEqual([])
    expect(await admit('pypi.org', 80)).toMatchObject({ ok: false, reason: /operator did not approve pypi\.org:80/ })
  })

  it('no rule: asked under on_risk (approved → through, refused → not resolved), refused outright under never', async () => {
    const approving = gateWith({ approve: true, names: { 'files.test': ['93.184.216.34'] } })
    expect(await approving.admit('files.test')).toMatchObject({ ok: true, address: '93.184.216.34' })
    const refusing = gateWith({ approve: false, names: { 'files.test': ['93.184.216.34'] } })
    expect(await refusing.admit('files.test')).toMatchObject({ ok: false, reason: /did not approve/ })
    expect(refusing.looked).toEqual([])
    const never = gateWith({ ask: 'never', approve: true })
    expect(await never.admit('files.test')).toMatchObject({ ok: false, reason: /ask: never/ })
    expect(never.asked).toEqual([])
  })

  it('a pinned name or an exact rule may name a loopback address; a wildcard rule may not', async () => {
    expect(await gateWith({ pins: { 'pkgs.test': '127.0.0.1' }, rules: [rule('allow', 'pkgs.test')] }).admit('pkgs.test', 8080)).toMatchObject({
      ok: true,
      address: '127.0.0.1'
    })
    expect(await gateWith({ rules: [rule('allow', '127.0.0.1')] }).admit('0x7f000001', 8080)).toMatchObject({ ok: true, address: '127.0.0.1' })
    expect(await gateWith({ rules: [rule('allow', '*.test')], names: { 'db.test': ['127.0.0.1'] } }).admit('db.test')).toMatchObject({ ok: false })
  })

  it.each(['a'.repeat(300), 'bad host', 'under_score..test', ''])('refuses %j as a host name', async (host) => {
    expect(await gateWith({ approve: true }).admit(host)).toMatchObject({ ok: false, reason: /is not a host name/ })
  })

  it("a role rule applies to the agents of that role only, below the agent's own rules and above global ones", async () => {
    const names = { 'pypi.org': ['151.101.0.223'] }
    const rules = [
      rule('ask', 'pypi.org'),
      rule('allow', 'pypi.org', { id: 'role-allow', roleId: 'builders' }),
      rule('ask', 'pypi.org', { id: 'other-role', roleId: 'testers' })
    ]
    const builder = gateWith({ rules, names, role: 'builders' })
    expect(await builder.admit('pypi.org')).toMatchObject({ ok: true, rule: 'role-allow' })
    expect(builder.asked).toEqual([])
    const loner = gateWith({ rules, names, approve: false })
    expect(await loner.admit('pypi.org')).toMatchObject({ ok: false, reason: /did not approve/ })
    const roleDeny = gateWith({
      rules: [rule('allow', 'pypi.org', { agentId: 'coder' }), rule('deny', 'pypi.org', { id: 'role-deny', roleId: 'builders' })],
      names,
      role: 'builders'
    })
    expect(await roleDeny.admit('pypi.org')).toMatchObject({ ok: false, rule: 'role-deny', reason: /\(role builders, rule role-deny\)/ })
  })

  it('a write-down is asked even where an allow rule admits the host, refused under never, and a deny still refuses first', async () => {
    const writeDown = (host: string) => (host === 'pypi.org' ? 'this session has read CONFIDENTIAL data and pypi.org is labelled PUBLIC' : undefined)
    const names = { 'pypi.org': ['151.101.0.223'], 'corp.test': ['93.184.216.34'] }
    const rules = [rule('allow', 'pypi.org'), rule('allow', 'corp.test')]
    const refusing = gateWith({ rules, names, writeDown, approve: false })
    expect(await refusing.admit('pypi.org')).toMatchObject({ ok: false, reason: /did not approve pypi\.org:443 \(this session has read CONFIDENTIAL data/ })
    expect(refusing.asked).toEqual(['pypi.org:443 (this session has read CONFIDENTIAL data and pypi.org is labelled PUBLIC)'])
    expect(refusing.looked).toEqual([])
    // A host labelled at or above the taint is not a write-down: the allow rule admits it unasked.
    expect(await refusing.admit('corp.test')).toMatchObject({ ok: true })
    expect(refusing.asked).toHaveLength(1)
    expect(await gateWith({ rules, names, writeDown, approve: true }).admit('pypi.org')).toMatchObject({ ok: true })
    const never = gateWith({ rules, names, writeDown, ask: 'never', approve: true })
    expect(await never.admit('pypi.org')).toMatchObject({ ok: false, reason: /write-down\), and agent coder is never asked/ })
    expect(never.asked).toEqual([])
    const denied = gateWith({ rules: [rule('deny', 'pypi.org')], names, writeDown, approve: true })
    expect(await denied.admit('pypi.org')).toMatchObject({ ok: false, reason: /is denied by/ })
    expect(denied.asked).toEqual([])
  })
})
