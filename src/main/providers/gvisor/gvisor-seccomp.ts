import { containerSeccompProfile } from '../docker/seccomp-profile'

/**
 * The seccomp filter gVisor's kernel applies to the program: the containers' profile (Docker's
 * default allowlist minus the sandbox deny list, no namespace flags on clone, only unix and IP
 * sockets), so every provider refuses the same calls and a Sentry bug behind ptrace, io_uring or
 * user namespaces is not reachable either. One difference: that profile answers clone3 with
 * ENOSYS so libc falls back to clone, but runsc builds before 2023 ignore `errnoRet` (every
 * refusal is EPERM, and glibc does not fall back on EPERM: no threads). Where the probe saw that
 * this runsc does not implement clone3 at all (`clone3Unimplemented`), clone3 is left to gVisor,
 * which answers ENOSYS itself; elsewhere the ENOSYS rule stays.
 */
export function gvisorSeccomp(options: { clone3Unimplemented: boolean }): object {
  const profile = JSON.parse(containerSeccompProfile()) as { syscalls: SeccompRule[] }
  const syscalls = profile.syscalls.flatMap((rule) => (rule.names.includes('socket') && rule.action === 'SCMP_ACT_ALLOW' ? withoutIcmp(rule) : [rule]))
  if (!options.clone3Unimplemented) return { ...profile, syscalls }
  return { ...profile, syscalls: [...syscalls.filter((rule) => !rule.names.includes('clone3')), { names: ['clone3'], action: 'SCMP_ACT_ALLOW' }] }
}

type SeccompRule = { names: string[]; action: string; args?: { index: number; value: number; op: string }[] }

/** The ping protocol of each IP family: IPPROTO_ICMP for AF_INET (2), IPPROTO_ICMPV6 for AF_INET6 (10). */
const pingProtocol: Record<number, number> = { 2: 1, 10: 58 }

/**
 * A socket rule of an IP family that also requires another protocol than its ping protocol: the
 * host kernel refuses ping sockets to the sandbox uid (ping_group_range), but gVisor's own network
 * stack hands them out. One condition per argument: gVisor reads two conditions on one argument
 * as two rules (either would do), which would let every family through.
 */
function withoutIcmp(rule: SeccompRule): SeccompRule[] {
  const family = rule.args?.find((arg) => arg.index === 0 && arg.op === 'SCMP_CMP_EQ')?.value
  const ping = family === undefined ? undefined : pingProtocol[family]
  return [ping === undefined ? rule : { ...rule, args: [...(rule.args ?? []), { index: 2, value: ping, op: 'SCMP_CMP_NE' }] }]
}
