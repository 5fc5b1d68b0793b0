import { deniedSyscalls } from '../process/syscall-denylist'

/** Namespace flags of clone(2): a clone that asks for any of them is refused. */
const namespaceFlags = [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080]

/** Syscalls Docker's default profile refuses that are not on the sandbox list already. */
const dockerDefaultExtras = ['mbind', 'set_mempolicy', 'get_mempolicy', 'move_pages', 'sysfs', 'ustat', 'uselib', 'vm86', 'vm86old', 'create_module', 'get_kernel_syms', 'query_module', 'nfsservctl', 'stime', 'umount', '_sysctl', 'lookup_dcookie']

const EPERM = 1
const ENOSYS = 38

/**
 * The containers' seccomp profile (SPEC §4: Docker's default plus the bubblewrap deny list): the
 * sandbox deny list (ptrace, process_vm_*, mount APIs, unshare/setns, keyrings, bpf, io_uring,
 * perf, modules, kexec, ...) plus what Docker's default profile refuses, clone with namespace
 * flags refused, clone3 answered ENOSYS so libc falls back to clone. Everything else is allowed,
 * as the default profile does for ordinary programs.
 */
export function containerSeccompProfile(): string {
  return JSON.stringify({
    defaultAction: 'SCMP_ACT_ALLOW',
    architectures: process.arch === 'arm64' ? ['SCMP_ARCH_AARCH64', 'SCMP_ARCH_ARM'] : ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],
    syscalls: [
      { names: [...deniedSyscalls, ...dockerDefaultExtras], action: 'SCMP_ACT_ERRNO', errnoRet: EPERM },
      { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
      ...namespaceFlags.map((flag) => ({
        names: ['clone'],
        action: 'SCMP_ACT_ERRNO',
        errnoRet: EPERM,
        args: [{ index: 0, value: flag, valueTwo: flag, op: 'SCMP_CMP_MASKED_EQ' }]
      }))
    ]
  })
}
