import { deniedSyscalls } from '../../core/sandbox/syscall-denylist'

/**
 * The syscalls Docker's default profile (moby `profiles/seccomp/default.json`) allows to every
 * container without added capabilities, by name. Written out here so the allowlist is ours to
 * read and review; the sandbox deny list is taken out of it below.
 */
const dockerDefaultAllowed = `
accept accept4 access adjtimex alarm bind brk capget capset chdir chmod chown chown32
clock_adjtime clock_adjtime64 clock_getres clock_getres_time64 clock_gettime clock_gettime64
clock_nanosleep clock_nanosleep_time64 close close_range connect copy_file_range creat dup dup2
dup3 epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait
epoll_wait_old eventfd eventfd2 execve execveat exit exit_group faccessat faccessat2 fadvise64
fadvise64_64 fallocate fanotify_mark fchdir fchmod fchmodat fchown fchown32 fchownat fcntl fcntl64
fdatasync fgetxattr flistxattr flock fork fremovexattr fsetxattr fstat fstat64 fstatat64 fstatfs
fstatfs64 fsync ftruncate ftruncate64 futex futex_time64 futex_waitv futimesat getcpu getcwd
getdents getdents64 getegid getegid32 geteuid geteuid32 getgid getgid32 getgroups getgroups32
getitimer getpeername getpgid getpgrp getpid getppid getpriority getrandom getresgid getresgid32
getresuid getresuid32 getrlimit get_robust_list getrusage getsid getsockname getsockopt
get_thread_area gettid gettimeofday getuid getuid32 getxattr inotify_add_watch inotify_init
inotify_init1 inotify_rm_watch io_cancel ioctl io_destroy io_getevents io_pgetevents
io_pgetevents_time64 ioprio_get ioprio_set io_setup io_submit io_uring_enter io_uring_register
io_uring_setup ipc kill landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown
lchown32 lgetxattr link linkat listen listxattr llistxattr _llseek lremovexattr lseek lsetxattr
lstat lstat64 madvise membarrier memfd_create memfd_secret mincore mkdir mkdirat mknod mknodat
mlock mlock2 mlockall mmap mmap2 mprotect mq_getsetattr mq_notify mq_open mq_timedreceive
mq_timedreceive_time64 mq_timedsend mq_timedsend_time64 mq_unlink mremap msgctl msgget msgrcv
msgsnd msync munlock munlockall munmap name_to_handle_at nanosleep newfstatat _newselect open
openat openat2 pause pidfd_open pidfd_send_signal pipe pipe2 pkey_alloc pkey_free pkey_mprotect
poll ppoll ppoll_time64 prctl pread64 preadv preadv2 prlimit64 process_mrelease pselect6
pselect6_time64 pwrite64 pwritev pwritev2 read readahead readlink readlinkat readv recv recvfrom
recvmmsg recvmmsg_time64 recvmsg remap_file_pages removexattr rename renameat renameat2
restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo rt_sigreturn
rt_sigsuspend rt_sigtimedwait rt_sigtimedwait_time64 rt_tgsigqueueinfo sched_getaffinity
sched_getattr sched_getparam sched_get_priority_max sched_get_priority_min sched_getscheduler
sched_rr_get_interval sched_rr_get_interval_time64 sched_setaffinity sched_setattr
sched_setparam sched_setscheduler sched_yield seccomp select semctl semget semop semtimedop
semtimedop_time64 send sendfile sendfile64 sendmmsg sendmsg sendto setfsgid setfsgid32 setfsuid
setfsuid32 setgid setgid32 setgroups setgroups32 setitimer setpgid setpriority setregid
setregid32 setresgid setresgid32 setresuid setresuid32 setreuid setreuid32 setrlimit
set_robust_list setsid setsockopt set_thread_area set_tid_address setuid setuid32 setxattr shmat
shmctl shmdt shmget shutdown sigaltstack signalfd signalfd4 sigprocmask sigreturn socketcall
splice stat stat64 statfs statfs64 statx symlink symlinkat sync sync_file_range syncfs sysinfo
tee tgkill time timer_create timer_delete timer_getoverrun timer_gettime timer_gettime64
timer_settime timer_settime64 timerfd_create timerfd_gettime timerfd_gettime64 timerfd_settime
timerfd_settime64 times tkill truncate truncate64 ugetrlimit umask uname unlink unlinkat utime
utimensat utimensat_time64 utimes vfork vmsplice wait4 waitid waitpid write writev
`
  .split(/\s+/)
  .filter(Boolean)

/**
 * Taken out on top of the sandbox deny list: `socketcall` is the 32-bit socket multiplexer whose
 * arguments sit in memory, where no filter can see the address family.
 */
const alsoRefused = ['socketcall']

/** Arch-specific calls the default profile allows per architecture. */
const archAllowed: Record<string, string[]> = { x64: ['arch_prctl', 'modify_ldt'], arm64: [] }

/** Socket families a container may create: AF_UNIX, AF_INET, AF_INET6 (never AF_VSOCK, AF_NETLINK, AF_PACKET, ...). */
export const allowedSocketFamilies = [1, 2, 10]

/** clone(2) flags that make a namespace (NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME). */
const namespaceFlags = 0x7e020000 | 0x00000080

/** personality(2) values the default profile allows (PER_LINUX, UNAME26, ADDR_NO_RANDOMIZE variants, query). */
const personalities = [0, 8, 0x20000, 0x20008, 0xffffffff]

const EPERM = 1
const ENOSYS = 38
const EAFNOSUPPORT = 97

/** The allowed syscalls by name: Docker's default allowlist minus the sandbox deny list (exported for tests and the doctor). */
export function allowedSyscalls(arch: string = process.arch): string[] {
  const refused = new Set([...deniedSyscalls, ...alsoRefused])
  return [...dockerDefaultAllowed, ...(archAllowed[arch] ?? [])].filter((name) => !refused.has(name))
}

/**
 * The containers' seccomp profile (SPEC §4): deny by default (EPERM); allowed are Docker's default
 * allowlist minus the sandbox deny list (ptrace, process_vm_*, mount APIs, unshare/setns,
 * keyrings, bpf, io_uring, perf, ...), clone without namespace flags, clone3 answered ENOSYS so
 * libc falls back to clone, and socket/socketpair only for the families above (others
 * EAFNOSUPPORT). Only the native architecture: 32-bit and x32 syscalls are refused outright.
 */
export function containerSeccompProfile(arch: string = process.arch): string {
  const otherFamilies = [0, 3, 4, 5, 6, 7, 8, 9].map((family) => ({ index: 0, value: family, op: 'SCMP_CMP_EQ' }))
  const familyRules = (names: string[]) => [
    ...allowedSocketFamilies.map((family) => ({ names, action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: family, op: 'SCMP_CMP_EQ' }] })),
    ...[...otherFamilies, { index: 0, value: 11, op: 'SCMP_CMP_GE' }].map((arg) => ({ names, action: 'SCMP_ACT_ERRNO', errnoRet: EAFNOSUPPORT, args: [arg] }))
  ]
  return JSON.stringify({
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: EPERM,
    architectures: arch === 'arm64' ? ['SCMP_ARCH_AARCH64'] : ['SCMP_ARCH_X86_64'],
    syscalls: [
      { names: allowedSyscalls(arch), action: 'SCMP_ACT_ALLOW' },
      { names: ['clone'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value: namespaceFlags, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }] },
      { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS },
      ...familyRules(['socket']),
      ...familyRules(['socketpair']),
      ...personalities.map((value) => ({ names: ['personality'], action: 'SCMP_ACT_ALLOW', args: [{ index: 0, value, op: 'SCMP_CMP_EQ' }] }))
    ]
  })
}
