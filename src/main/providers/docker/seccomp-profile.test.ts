import { describe, expect, it } from 'vitest'
import { deniedSyscalls } from '../../core/sandbox/syscall-denylist'
import { allowedSocketFamilies, allowedSyscalls, containerSeccompProfile } from './seccomp-profile'

type Rule = { names: string[]; action: string; errnoRet?: number; args?: { index: number; value: number; op: string }[] }
const profile = JSON.parse(containerSeccompProfile('x64')) as { defaultAction: string; defaultErrnoRet: number; architectures: string[]; syscalls: Rule[] }
const rulesFor = (name: string) => profile.syscalls.filter((rule) => rule.names.includes(name))

describe('container seccomp profile', () => {
  it('is an allowlist: anything not named is refused with EPERM, native architecture only', () => {
    expect(profile).toMatchObject({ defaultAction: 'SCMP_ACT_ERRNO', defaultErrnoRet: 1, architectures: ['SCMP_ARCH_X86_64'] })
  })

  it('allows none of the sandbox deny list, nor the 32-bit socket multiplexer', () => {
    const allowed = new Set(profile.syscalls.filter((rule) => rule.action === 'SCMP_ACT_ALLOW' && !rule.args).flatMap((rule) => rule.names))
    for (const name of [...deniedSyscalls, 'socketcall', 'clone', 'clone3', 'socket', 'socketpair', 'personality']) expect(allowed.has(name), name).toBe(false)
    expect(allowedSyscalls('x64')).toEqual(expect.arrayContaining(['read', 'execve', 'wait4', 'arch_prctl', 'rseq']))
  })

  it('socket and socketpair only for AF_UNIX, AF_INET, AF_INET6; other families EAFNOSUPPORT', () => {
    for (const name of ['socket', 'socketpair']) {
      const rules = rulesFor(name)
      expect(rules.filter((r) => r.action === 'SCMP_ACT_ALLOW').map((r) => r.args)).toEqual(
        allowedSocketFamilies.map((value) => [{ index: 0, value, op: 'SCMP_CMP_EQ' }])
      )
      const refused = rules.filter((r) => r.action === 'SCMP_ACT_ERRNO')
      expect(refused.every((r) => r.errnoRet === 97)).toBe(true)
      // Every family but the three is covered by a refusing rule: 0, 3..9 by equality, 11 and up (AF_VSOCK is 40) by >=.
      expect(refused.map((r) => `${r.args![0]!.op} ${r.args![0]!.value}`)).toEqual([
        ...[0, 3, 4, 5, 6, 7, 8, 9].map((f) => `SCMP_CMP_EQ ${f}`),
        'SCMP_CMP_GE 11'
      ])
    }
  })

  it('clone only without namespace flags; clone3 ENOSYS', () => {
    expect(rulesFor('clone')).toEqual([
      { names: ['clone'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: 0x7e020080, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }] }
    ])
    expect(rulesFor('clone3')).toEqual([{ names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: 38 }])
  })
})
