/**
 * The syscalls every Airlock sandbox denies (bubblewrap's generated filter, the docker provider's
 * profile): ptrace and cross-process memory, every mount API, namespaces, kexec, modules, bpf,
 * keyrings, io_uring, perf, reboot/swap, handle-based opens, userfaultfd, clock and log changes.
 * Numbers per architecture for the BPF filter; names for Docker's profile.
 */
export const syscallNumbers: Record<string, { x64?: number; arm64?: number }> = {
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

/** The denied syscalls by name (for the doctor, the docs and Docker's profile). */
export const deniedSyscalls = Object.keys(syscallNumbers)

/**
 * The socket families a sandboxed run may open (socket/socketpair's first argument): unix, and
 * inet/inet6 (inside its own empty network namespace unless the policy gives it the host's).
 * Everything else is refused: AF_VSOCK reaches the host's vsock namespace whatever the network
 * namespace, and netlink, packet, bluetooth, alg, ... are not what a program run needs.
 */
export const allowedSocketFamilies = [1, 2, 10]
