// The docker provider's escape corpus as data: each case is an attack run through the handle's
// CommandRunner/ProgramRunner as an agent would, the exact outcome, and what on the host must be
// unchanged (checked by docker-escapes.test.ts after every case, on top of `hostUnchanged`).
// Cases that escaped in an attack run on this provider are marked `regression`.
import { lstatSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { sandboxIdentity, type CommandResult, type ResourcePolicy } from '../../src/main/core'

/** What a case may use: the workspace (bound at its own path), a host directory outside it, the outside dir's owner before the run. */
export type DockerEscapeContext = { workspace: string; outside: string; outsideOwner: { uid: number; gid: number } }

/** One attack. `exec` runs argv through ProgramRunner.exec (with extra writable roots); otherwise `command` runs through CommandRunner.run. */
export type DockerEscapeCase = {
  id: string
  attack: string
  regression?: boolean
  /** A bash command line run in the workspace first (its result is not checked; nothing it starts may outlive it). */
  prepare?: (ctx: DockerEscapeContext) => string
  command: (ctx: DockerEscapeContext) => string
  writableRoots?: (ctx: DockerEscapeContext) => string[]
  timeoutSeconds?: number
  policy?: Partial<ResourcePolicy>
  /** The exact outcome: a result, or the typed error the call was refused with. */
  expect: (outcome: CommandResult | { error: { code?: string; message: string } }, ctx: DockerEscapeContext) => void
  hostUnchanged?: (ctx: DockerEscapeContext) => void
}

const identity = sandboxIdentity()
const sysctl = (name: string) => readFileSync(`/proc/sys/${name}`, 'utf8')
/** Host values read when the corpus loads; every case must leave them as they were. */
export const hostBefore = { corePattern: sysctl('kernel/core_pattern'), leaseBreak: sysctl('fs/lease-break-time') }

const result = (outcome: Parameters<DockerEscapeCase['expect']>[0]) => {
  expect(outcome).not.toHaveProperty('error')
  return outcome as CommandResult
}
const prints = (text: string) => (outcome: Parameters<DockerEscapeCase['expect']>[0]) => expect(result(outcome).stdout.trim()).toBe(text)
const refused = (code: string, message: RegExp) => (outcome: Parameters<DockerEscapeCase['expect']>[0]) =>
  expect(outcome).toMatchObject({ error: { code, message: expect.stringMatching(message) } })
/** Python calling libc through ctypes, printing the return value and the errno name. */
const libc = (call: string) =>
  `python3 -c "import ctypes, errno; libc = ctypes.CDLL(None, use_errno=True); r = ${call}; print(r, errno.errorcode.get(ctypes.get_errno(), 'OK'))"`
const keyctl = process.arch === 'arm64' ? 219 : 250
/** A detached process in a new session that closed its output, so only Airlock's clean-up can end it. */
const daemon = (seconds: number) => `python3 -c "
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.closerange(0, 3)
        time.sleep(${seconds})
    os._exit(0)
os.wait()
print('started')"`

/** Python opening an IPv4 and an IPv6 ping socket, printing `OPEN` or the errno name of each. */
export const pingSockets = `python3 -c "
import errno, socket
for name, family, protocol in [('ping4', socket.AF_INET, socket.IPPROTO_ICMP), ('ping6', socket.AF_INET6, socket.IPPROTO_ICMPV6)]:
    try:
        socket.socket(family, socket.SOCK_DGRAM, protocol).close()
        print(name, 'OPEN')
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))"`

/** The corpus (the outcomes are those of the docker provider on this host, run as root like CI). */
export const dockerEscapeCases: DockerEscapeCase[] = [
  {
    id: 'write-outside-absolute',
    attack: 'write a file at an absolute host path outside the workspace',
    command: (ctx) => `echo x > ${ctx.outside}/pwned; echo rc=$?`,
    expect: (outcome) => {
      expect(result(outcome).stdout.trim()).toBe('rc=1')
      expect(result(outcome).stderr).toMatch(/No such file or directory/)
    }
  },
  {
    id: 'write-outside-dotdot',
    attack: 'climb out of the workspace with ..',
    command: () => 'echo x > ../pwned; echo rc=$?',
    expect: (outcome) => {
      expect(result(outcome).stdout.trim()).toBe('rc=1')
      expect(result(outcome).stderr).toMatch(/Read-only file system/)
    }
  },
  {
    id: 'symlink-outside',
    attack: 'plant a symlink to a host directory and write through it',
    command: (ctx) => `ln -s ${ctx.outside} out && echo x > out/pwned; echo rc=$?`,
    expect: prints('rc=1')
  },
  {
    id: 'hardlink-host-file',
    attack: 'hard-link a host file into the workspace',
    command: () => 'ln /etc/passwd pw; echo rc=$?',
    expect: prints('rc=1')
  },
  {
    id: 'setuid-file',
    attack: 'cp /bin/sh suid; chmod 4755 suid: a setuid binary on the host',
    regression: true,
    command: () => "cp /bin/sh suid && chmod 4755 suid && stat -c '%u %a' suid",
    expect: prints(`${identity.uid} 4755`),
    hostUnchanged: (ctx) => expect(lstatSync(join(ctx.workspace, 'suid')).uid).toBe(identity.uid)
  },
  {
    id: 'runs-as-sandbox-identity',
    attack: "code runs as root or as the image's user instead of the host's sandbox identity",
    regression: true,
    command: () => 'id -u; id -g; touch owned',
    expect: prints(`${identity.uid}\n${identity.gid}`),
    hostUnchanged: (ctx) => expect(lstatSync(join(ctx.workspace, 'owned')).uid).toBe(identity.uid)
  },
  {
    id: 'core-pattern-pipe',
    attack: 'write a pipe handler to /proc/sys/kernel/core_pattern (host root code execution)',
    command: () => 'echo "|/bin/sh -c id" > /proc/sys/kernel/core_pattern; echo rc=$?',
    expect: (outcome) => {
      expect(result(outcome).stdout.trim()).toBe('rc=1')
      expect(result(outcome).stderr).toMatch(/core_pattern: Read-only file system/)
    },
    hostUnchanged: () => expect(sysctl('kernel/core_pattern')).toBe(hostBefore.corePattern)
  },
  {
    id: 'host-sysctl',
    attack: 'change a host-global sysctl (fs.lease-break-time)',
    command: () => 'echo 1 > /proc/sys/fs/lease-break-time; echo rc=$?',
    expect: prints('rc=1'),
    hostUnchanged: () => expect(sysctl('fs/lease-break-time')).toBe(hostBefore.leaseBreak)
  },
  {
    id: 'vsock',
    attack: 'open an AF_VSOCK socket with the network off (reaches the host vsock namespace)',
    regression: true,
    command: () => libc('libc.socket(40, 1, 0)'),
    expect: prints('-1 EAFNOSUPPORT')
  },
  {
    id: 'vsock-python',
    attack: 'socket.socket(AF_VSOCK) from Python',
    regression: true,
    command: () => `python3 -c "import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)" 2>&1 | tail -1`,
    expect: prints('OSError: [Errno 97] Address family not supported by protocol')
  },
  {
    id: 'vsock-socketpair',
    attack: 'socketpair(AF_VSOCK)',
    command: () => libc('libc.socketpair(40, 1, 0, (ctypes.c_int * 2)())'),
    expect: prints('-1 EAFNOSUPPORT')
  },
  { id: 'netlink', attack: 'open an AF_NETLINK socket', command: () => libc('libc.socket(16, 3, 0)'), expect: prints('-1 EAFNOSUPPORT') },
  {
    id: 'family-high-bits',
    attack: 'AF_UNIX with high bits set in the family argument',
    command: () => libc('libc.syscall(41, ctypes.c_long(0x100000001), 1, 0)'),
    expect: prints('-1 EAFNOSUPPORT')
  },
  {
    id: 'ping-socket',
    attack: 'open ICMP ping sockets (SOCK_DGRAM + IPPROTO_ICMP / IPPROTO_ICMPV6), which a bubblewrap sandbox cannot',
    command: () => pingSockets,
    expect: prints('ping4 EACCES\nping6 EACCES')
  },
  {
    id: 'unix-inet-allowed',
    attack: '(control) AF_UNIX, AF_INET and AF_INET6 sockets still work',
    command: () => libc('min(libc.socket(1, 1, 0), libc.socket(2, 1, 0), libc.socket(10, 2, 0)) > 0'),
    expect: prints('True OK')
  },
  {
    id: 'unshare-userns',
    attack: 'create a user namespace to regain capabilities',
    command: () => libc('libc.unshare(0x10000000)'),
    expect: prints('-1 EPERM')
  },
  { id: 'unshare-binary', attack: 'unshare(1) a mount namespace', command: () => 'unshare -m true; echo rc=$?', expect: prints('rc=1') },
  { id: 'mount-tmpfs', attack: 'mount a filesystem', command: () => libc("libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)"), expect: prints('-1 EPERM') },
  { id: 'ptrace-init', attack: 'ptrace the container init', command: () => libc('libc.ptrace(16, 1, 0, 0)'), expect: prints('-1 EPERM') },
  { id: 'keyctl', attack: 'keyctl (kernel keyrings are not namespaced)', command: () => libc(`libc.syscall(${keyctl}, 0, -3, 0)`), expect: prints('-1 EPERM') },
  { id: 'io-uring', attack: 'io_uring_setup', command: () => libc('libc.syscall(425, 8, 0)'), expect: prints('-1 EPERM') },
  {
    id: 'clone3',
    attack: 'clone3 (flags the filter cannot read): answered ENOSYS so libc falls back to clone',
    command: () => libc('libc.syscall(435, 0, 0)'),
    expect: prints('-1 ENOSYS')
  },
  {
    id: 'init-memory',
    attack: "write the memory of the container's init (/proc/1/mem)",
    command: () => 'echo x > /proc/1/mem; echo rc=$?',
    expect: prints('rc=1')
  },
  {
    id: 'kill-init',
    attack: 'kill the process that keeps the container alive',
    command: () => 'kill -KILL 1; a=$?; kill -KILL $(cat /proc/1/task/1/children); echo "$a $?"',
    expect: prints('1 1')
  },
  { id: 'mknod', attack: 'create a device node', command: () => 'mknod mem c 1 1; echo rc=$?', expect: prints('rc=1') },
  {
    id: 'docker-socket',
    attack: 'reach the Docker engine socket',
    command: () => 'ls /var/run/docker.sock /run/docker.sock >/dev/null 2>&1; echo rc=$?',
    expect: prints('rc=2')
  },
  {
    id: 'network-egress',
    attack: 'TCP to the outside with the network off',
    command: () => `python3 -c "
import socket, errno
try:
    socket.create_connection(('1.1.1.1', 53), timeout=3)
    print('connected')
except OSError as e:
    print(errno.errorcode[e.errno])"`,
    expect: prints('ENETUNREACH')
  },
  {
    id: 'setsid-survivor',
    attack: 'setsid sleep 300 & outlives the call',
    regression: true,
    command: () => 'setsid sleep 300 & echo started',
    expect: prints('started')
  },
  {
    id: 'double-fork-survivor',
    attack: 'a double-forked daemon in its own session outlives the call',
    regression: true,
    command: () => daemon(301),
    expect: prints('started')
  },
  {
    id: 'nohup-survivor',
    attack: 'nohup sleep & outlives the call',
    command: () => 'nohup sleep 302 >/dev/null 2>&1 & echo started',
    expect: prints('started')
  },
  {
    id: 'wrapper-killed',
    attack: "kill Airlock's run wrapper first, so its own clean-up never runs",
    command: () => 'setsid sleep 303 </dev/null >/dev/null 2>&1 & kill -KILL $PPID; echo started',
    expect: prints('started')
  },
  {
    id: 'term-ignoring-timeout',
    attack: 'a TERM-ignoring process in its own session at timeout',
    regression: true,
    timeoutSeconds: 2,
    command: () => `setsid bash -c "trap '' TERM; sleep 304" </dev/null >/dev/null 2>&1 & trap '' TERM; sleep 305`,
    expect: (outcome) => expect(result(outcome)).toMatchObject({ timedOut: true, exitCode: 124 })
  },
  {
    id: 'cpu-spin-4',
    attack: 'four spinning processes under a 3 CPU-second budget (rlimits are per process)',
    regression: true,
    timeoutSeconds: 60,
    command: () => 'for i in 1 2 3 4; do (while :; do :; done) & done; wait',
    expect: (outcome) => {
      expect(result(outcome)).toMatchObject({ limitHit: 'cpu', timedOut: false })
      expect(result(outcome).stderr).toMatch(/ended by the cpu limit/)
      // 3 CPU-seconds at one CPU, sampled every 250 ms: well before any per-process rlimit (4 × 3 s).
      expect(result(outcome).durationMs).toBeLessThan(9000)
    }
  },
  {
    id: 'run-root-symlink',
    attack: 'a run root that is a symlink the container planted (host chown/bind through it)',
    regression: true,
    prepare: (ctx) => `ln -sfn ${ctx.outside} area-link`,
    command: () => 'touch pwned',
    writableRoots: (ctx) => [`${ctx.workspace}/area-link`],
    expect: refused('docker.workspace_refused', /symbolic link|not a directory/)
  },
  {
    id: 'run-root-outside',
    attack: 'a run root outside every mounted root',
    command: () => 'touch pwned',
    writableRoots: (ctx) => [ctx.outside],
    expect: refused('docker.workspace_refused', /not inside a workspace root/)
  },
  {
    id: 'symlink-swap-racer',
    attack: 'a racer swaps a directory of the run root with a symlink to a host directory (RENAME_EXCHANGE) while the host prepares the next run',
    regression: true,
    prepare: (ctx) => `mkdir -p race/d && ln -sfn ${ctx.outside} race/l && python3 -c "
import ctypes, os, time
if os.fork() == 0:
    os.setsid(); os.closerange(0, 3)
    libc = ctypes.CDLL(None)
    end = time.time() + 20
    while time.time() < end:
        libc.renameat2(-100, b'race/d', -100, b'race/l', 2)
    os._exit(0)
time.sleep(0.5)"`,
    command: () => 'ls race | sort | tr "\\n" " "',
    writableRoots: (ctx) => [`${ctx.workspace}/race`],
    expect: prints('d l'),
    // The host never changes an owner: the directory the link names keeps its owner.
    hostUnchanged: (ctx) => expect(lstatSync(ctx.outside)).toMatchObject(ctx.outsideOwner)
  }
]
