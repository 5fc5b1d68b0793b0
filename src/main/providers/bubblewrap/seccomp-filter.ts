/**
 * The sandbox's seccomp filter, generated as a classic BPF program for `bwrap --seccomp FD`.
 * It denies (EPERM) what a program never needs and a sandbox escape usually does: ptrace and
 * cross-process memory, every mount API, namespaces (unshare, setns, clone with namespace flags;
 * clone3 → ENOSYS so libc falls back to clone), kexec, module loading, bpf, keyrings, io_uring,
 * perf, reboot/swap, handle-based file opens, userfaultfd and clock/log changes. A syscall from
 * another ABI (i386 or x32 on x86_64) kills the process.
 */

const syscallNumbers: Record<string, { x64?: number; arm64?: number }> = {
  ptrace: { x64: 101, arm64: 117 },
  process_vm_readv: { x64: 310, arm64: 270 },
  process_vm_writev: { x64: 311, arm64: 271 },
  mount: { x64: 165, arm64: 40 },
  umount2: { x64: 166, arm64: 39 },
  pivot_root: { x64: 155, arm64: 41 },
  open_tree: { x64: 428, arm64: 428 },
  move_mount: { x64: 429, arm64: 429 },
  fsopen: { x64: 430, arm64: 430 },
  fsconfig: { x64: 431, arm64: 431 },
  fsmount: { x64: 432, arm64: 432 },
  fspick: { x64: 433, arm64: 433 },
  mount_setattr: { x64: 442, arm64: 442 },
  kexec_load: { x64: 246, arm64: 104 },
  kexec_file_load: { x64: 320, arm64: 294 },
  bpf: { x64: 321, arm64: 280 },
  keyctl: { x64: 250, arm64: 219 },
  add_key: { x64: 248, arm64: 217 },
  request_key: { x64: 249, arm64: 218 },
  io_uring_setup: { x64: 425, arm64: 425 },
  io_uring_enter: { x64: 426, arm64: 426 },
  io_uring_register: { x64: 427, arm64: 427 },
  unshare: { x64: 272, arm64: 97 },
  setns: { x64: 308, arm64: 268 },
  perf_event_open: { x64: 298, arm64: 241 },
  init_module: { x64: 175, arm64: 105 },
  finit_module: { x64: 313, arm64: 273 },
  delete_module: { x64: 176, arm64: 106 },
  reboot: { x64: 169, arm64: 142 },
  swapon: { x64: 167, arm64: 224 },
  swapoff: { x64: 168, arm64: 225 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  name_to_handle_at: { x64: 303, arm64: 264 },
  userfaultfd: { x64: 323, arm64: 282 },
  acct: { x64: 163, arm64: 89 },
  quotactl: { x64: 179, arm64: 60 },
  settimeofday: { x64: 164, arm64: 170 },
  clock_settime: { x64: 227, arm64: 112 },
  clock_adjtime: { x64: 305, arm64: 266 },
  adjtimex: { x64: 159, arm64: 171 },
  syslog: { x64: 103, arm64: 116 },
  kcmp: { x64: 312, arm64: 272 },
  fanotify_init: { x64: 300, arm64: 262 },
  iopl: { x64: 172 },
  ioperm: { x64: 173 },
  vhangup: { x64: 153, arm64: 58 }
}

/** The syscalls the filter denies, by name (for the doctor and the docs). */
export const deniedSyscalls = Object.keys(syscallNumbers)

const architectures = {
  x64: { audit: 0xc000003e, clone: 56, clone3: 435, x32Bit: 0x40000000 },
  arm64: { audit: 0xc00000b7, clone: 220, clone3: 435, x32Bit: undefined }
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
