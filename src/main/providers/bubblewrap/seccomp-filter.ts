import { allowedSocketFamilies, syscallNumbers } from '../../core/sandbox/syscall-denylist'

/**
 * The sandbox's seccomp filter, generated as a classic BPF program for `bwrap --seccomp FD`.
 * It denies (EPERM) what a program never needs and a sandbox escape usually does: ptrace and
 * cross-process memory, every mount API, namespaces (unshare, setns, clone with namespace flags;
 * clone3 → ENOSYS so libc falls back to clone), kexec, module loading, bpf, keyrings, io_uring,
 * perf, reboot/swap, handle-based file opens, userfaultfd and clock/log changes; sockets only of
 * the families in `allowedSocketFamilies` (EAFNOSUPPORT otherwise). A syscall from
 * another ABI (i386 or x32 on x86_64) kills the process.
 */

const architectures = {
  x64: { audit: 0xc000003e, clone: 56, clone3: 435, socket: 41, socketpair: 53, x32Bit: 0x40000000 },
  arm64: { audit: 0xc00000b7, clone: 220, clone3: 435, socket: 198, socketpair: 199, x32Bit: undefined }
} as const

/** The architectures the filter can be generated for. */
export type SeccompArch = keyof typeof architectures

/** The filter architecture of this process, or undefined where none is known (then no sandbox). */
export function seccompArch(arch: string = process.arch): SeccompArch | undefined {
  return arch === 'x64' ? 'x64' : arch === 'arm64' ? 'arm64' : undefined
}

const LD_W_ABS = 0x20
const JEQ_K = 0x15
const JGE_K = 0x35
const JSET_K = 0x45
const RET_K = 0x06
const RET_ALLOW = 0x7fff0000
const RET_KILL_PROCESS = 0x80000000
const RET_ERRNO = 0x00050000
const EPERM = 1
const ENOSYS = 38
const EAFNOSUPPORT = 97

const namespaceFlags = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080

type Instruction = [code: number, jt: number, jf: number, k: number]

/** Builds the filter for an architecture as the bytes of `struct sock_filter[]` (little-endian). */
export function buildSeccompFilter(arch: SeccompArch): Buffer {
  const table = architectures[arch]
  const program: Instruction[] = [
    [LD_W_ABS, 0, 0, 4], // seccomp_data.arch
    [JEQ_K, 1, 0, table.audit],
    [RET_K, 0, 0, RET_KILL_PROCESS],
    [LD_W_ABS, 0, 0, 0] // seccomp_data.nr
  ]
  if (table.x32Bit !== undefined) program.push([JGE_K, 0, 1, table.x32Bit], [RET_K, 0, 0, RET_KILL_PROCESS])
  for (const numbers of Object.values(syscallNumbers)) {
    const nr = numbers[arch]
    if (nr !== undefined) program.push([JEQ_K, 0, 1, nr], [RET_K, 0, 0, RET_ERRNO | EPERM])
  }
  program.push([JEQ_K, 0, 1, table.clone3], [RET_K, 0, 0, RET_ERRNO | ENOSYS])
  for (const nr of [table.socket, table.socketpair]) {
    program.push([JEQ_K, 0, allowedSocketFamilies.length + 3, nr], [LD_W_ABS, 0, 0, 16]) // args[0] (family), low 32 bits
    // A match jumps over the remaining checks and the refusal to the allow.
    allowedSocketFamilies.forEach((family, index) => program.push([JEQ_K, allowedSocketFamilies.length - index, 0, family]))
    program.push([RET_K, 0, 0, RET_ERRNO | EAFNOSUPPORT], [RET_K, 0, 0, RET_ALLOW])
  }
  program.push(
    [JEQ_K, 0, 4, table.clone],
    [LD_W_ABS, 0, 0, 16], // args[0] (flags), low 32 bits
    [JSET_K, 0, 1, namespaceFlags],
    [RET_K, 0, 0, RET_ERRNO | EPERM],
    [RET_K, 0, 0, RET_ALLOW],
    [RET_K, 0, 0, RET_ALLOW]
  )
  const bytes = Buffer.alloc(program.length * 8)
  program.forEach(([code, jt, jf, k], index) => {
    bytes.writeUInt16LE(code, index * 8)
    bytes.writeUInt8(jt, index * 8 + 2)
    bytes.writeUInt8(jf, index * 8 + 3)
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4)
  })
  return bytes
}
