// The escape corpus as data (issue 13), provider-neutral: every case is what an agent sends
// (run_command, run_code, the file tools), the exact outcome on an isolating provider, and the host
// evidence of an escape. This file holds the attacks on the host's files, processes, privileges and
// devices, and assembles the whole corpus from its sibling files: escape-corpus-file-tool-cases.ts
// (file tools, TOCTOU races), escape-corpus-kernel-cases.ts (syscalls, network, kernel knobs) and
// escape-corpus-limit-cases.ts (limits, the sandbox's own files, paths the host reads back).
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { escapesWhen, kernelAllowed, libcCall, nr, printed, printedOn, py, sh, unprivileged, type EscapeCase } from './escape-corpus-case'
import { fileToolCases, raceCases } from './escape-corpus-file-tool-cases'
import { kernelCases } from './escape-corpus-kernel-cases'
import { limitCases } from './escape-corpus-limit-cases'

const filesystem: EscapeCase[] = [
  {
    id: 'fs-write-absolute',
    area: 'filesystem',
    attack: 'write a file at an absolute host path outside the workspace',
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`echo pwned > ${ctx.outside}/pwned-${ctx.caseId}; echo rc=$?`)],
    expect: (outcome) => {
      printed('rc=1')(outcome)
      expect(outcome.stderr).toMatch(/No such file or directory/)
    }
  },
  {
    id: 'fs-write-dotdot',
    area: 'filesystem',
    attack: 'climb out of the workspace with .. to a host folder',
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`echo pwned > ../../../outside/${ctx.caseId}/pwned-${ctx.caseId}; echo rc=$?`)],
    expect: printed('rc=1')
  },
  {
    id: 'fs-write-symlink',
    area: 'filesystem',
    attack: 'plant a symlink to a host folder and write through it',
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`ln -s ${ctx.outside} out-link && echo pwned > out-link/pwned-${ctx.caseId}; echo rc=$?`)],
    expect: printed('rc=1')
  },
  {
    id: 'fs-write-tmp',
    area: 'filesystem',
    attack: "write into /tmp (the sandbox's /tmp must not be the host's)",
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`echo pwned > /tmp/pwned-${ctx.caseId}; echo rc=$?`)],
    expect: printed('rc=0')
  },
  {
    id: 'fs-read-outside',
    area: 'filesystem',
    attack: 'read a host file outside the workspace',
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`cat ${ctx.outside}/secret.txt; echo rc=$?`)],
    expect: printed('rc=1')
  },
  {
    id: 'fs-read-other-agent-shell',
    area: 'filesystem',
    attack: "read another agent's workspace",
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`cat ${ctx.victimWorkspace}/notes.txt; echo rc=$?`)],
    expect: printed('rc=1')
  },
  {
    id: 'fs-read-other-agent-code',
    area: 'filesystem',
    attack: "list the workspaces folder and read another agent's notes from run_code",
    unisolated: 'escapes',
    attempt: (ctx) => [
      py(
        [
          'import os',
          `for path in ${JSON.stringify([join(ctx.home, 'workspaces'), ctx.victimWorkspace])}:`,
          '    try:',
          '        print(sorted(os.listdir(path)))',
          '    except OSError as e:',
          '        print(e.strerror)',
          'try:',
          `    print(open('${ctx.victimWorkspace}/notes.txt').read())`,
          'except OSError as e:',
          '    print(e.strerror)'
        ].join('\n')
      )
    ],
    // The folder above the workspace holds only the mount point of the agent's own workspace.
    expect: (outcome, ctx) => printed(`['${ctx.caseId}']\nNo such file or directory\nNo such file or directory`)(outcome),
    evidence: (outcome) => (outcome.stdout.includes("'victim'") || outcome.stdout.includes("'notes.txt'") ? ["another agent's workspace was listed"] : [])
  },
  {
    id: 'fs-write-other-agent',
    area: 'filesystem',
    attack: "write into another agent's workspace",
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`echo pwned > ${ctx.victimWorkspace}/pwned-${ctx.caseId}; echo rc=$?`)],
    expect: printed('rc=1')
  },
  {
    id: 'fs-read-airlock-home',
    area: 'filesystem',
    attack: "read Airlock's home: its database and what it holds",
    unisolated: escapesWhen(!unprivileged.ownUid),
    // find, not ls: Debian's runsc refuses the statx call coreutils' ls makes.
    attempt: (ctx) => [sh(`head -c 15 ${ctx.home}/airlock.db; echo " rc=$?"; find ${ctx.home} -mindepth 1 -maxdepth 1 -printf '%f\\n'; echo rc=$?`)],
    // The home seen inside is only the skeleton leading to the workspace's mount point.
    expect: printed('rc=1\nworkspaces\nrc=0'),
    evidence: (outcome) => (/SQLite format 3|airlock\.db/.test(outcome.stdout) ? ["Airlock's home was read"] : [])
  },
  {
    id: 'fs-hardlink-outside',
    area: 'filesystem',
    attack: 'hard-link a host file into the workspace and write through the link',
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`ln ${ctx.outside}/mine.txt hl && echo pwned >> hl; echo rc=$?`)],
    expect: printed('rc=1')
  },
  {
    id: 'fs-code-live-workspace',
    area: 'filesystem',
    attack: 'run_code on a snapshot grant writes the live workspace (outside its execution area)',
    unisolated: 'escapes',
    attempt: (ctx) => [
      py(
        [
          'import os',
          `for path in ['${ctx.workspace}/pwned-${ctx.caseId}', '../../../../pwned-${ctx.caseId}-up']:`,
          '    try:',
          "        open(path, 'w').write('pwned')",
          "        print('wrote')",
          '    except OSError as e:',
          '        print(e.strerror)'
        ].join('\n')
      )
    ],
    // gVisor: the path lies in the sandbox's read-only root, in a folder of root's (EACCES is checked first).
    expect: printedOn({
      bubblewrap: 'Read-only file system\nRead-only file system',
      docker: 'Read-only file system\nRead-only file system',
      gvisor: 'Permission denied\nPermission denied'
    })
  },
  {
    id: 'fs-code-bundle-dotdot',
    area: 'filesystem',
    attack: "a code bundle whose file path climbs out of the execution area ('../')",
    unisolated: 'holds',
    attempt: (ctx) => [
      py('', { sourceCode: undefined, files: [{ path: `../pwned-${ctx.caseId}.py`, content: 'print(1)' }], entrypoint: `../pwned-${ctx.caseId}.py` })
    ],
    expect: (outcome) => {
      expect(outcome.last).toMatchObject({ ok: false, status: 'error', error: { code: 'invalid_input' } })
      expect(outcome.last.error?.message).toMatch(/contains \.\./)
    }
  }
]

const processes: EscapeCase[] = [
  {
    id: 'proc-host-cmdline',
    area: 'process',
    attack: 'find a host process by its command line in /proc',
    unisolated: 'escapes',
    // The marker is assembled in a file, so grep's own command line does not hold it.
    attempt: (ctx) => [
      sh(
        `printf '%s%s' '${ctx.canary.marker.slice(0, 10)}' '${ctx.canary.marker.slice(10)}' > .m; grep -l -F -f .m /proc/[0-9]*/cmdline 2>/dev/null | head -3; echo rc=0`
      )
    ],
    expect: printed('rc=0'),
    evidence: (outcome, ctx) => (outcome.stdout.includes(`/proc/${ctx.canary.pid}/cmdline`) ? ['the host canary was found in /proc'] : [])
  },
  {
    id: 'proc-host-environ',
    area: 'process',
    attack: "read a host process's environment (/proc/<host pid>/environ)",
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`cat /proc/${ctx.canary.pid}/environ; echo rc=$?`)],
    expect: printed('rc=1')
  },
  {
    id: 'proc-kill-host',
    area: 'process',
    attack: 'kill a host process by its pid',
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`kill -KILL ${ctx.canary.pid}; echo rc=$?`)],
    expect: (outcome) => {
      printed('rc=1')(outcome)
      expect(outcome.stderr).toMatch(/No such process/)
    }
  },
  {
    id: 'proc-1-root',
    area: 'process',
    attack: "reach the host's file system through /proc/1/root and /proc/<host pid>/root",
    unisolated: 'escapes',
    attempt: (ctx) => [sh(`cat /proc/1/root${ctx.outside}/secret.txt; echo rc=$?; cat /proc/${ctx.canary.pid}/root${ctx.outside}/secret.txt; echo rc=$?`)],
    expect: printed('rc=1\nrc=1')
  },
  {
    id: 'ptrace-child',
    area: 'process',
    attack: 'ptrace(PTRACE_ATTACH) a child of the run',
    unisolated: escapesWhen(unprivileged.ptraceScope <= 1),
    attempt: () => [py(libcCall('pid = os.fork()\nif pid == 0:\n    time.sleep(5)\n    os._exit(0)', 'libc.ptrace(16, pid, 0, 0)') + '\nos.kill(pid, 9)')],
    expect: printed('-1 EPERM'),
    evidence: kernelAllowed('ptrace')
  },
  {
    id: 'ptrace-host',
    area: 'process',
    attack: 'ptrace(PTRACE_SEIZE) a host process of the same uid',
    unisolated: escapesWhen(unprivileged.ptraceScope === 0),
    attempt: (ctx) => [py(libcCall('', `libc.ptrace(0x4206, ${ctx.canary.pid}, 0, 0)`))],
    expect: printed('-1 EPERM'),
    evidence: kernelAllowed('ptrace of a host process')
  },
  {
    id: 'process-vm-readv',
    area: 'process',
    attack: "read a host process's memory with process_vm_readv",
    unisolated: escapesWhen(unprivileged.ptraceScope === 0),
    attempt: (ctx) => [
      py(
        libcCall(
          [
            `pid = ${ctx.canary.pid}`,
            'try:',
            "    start = int(open(f'/proc/{pid}/maps').readline().split('-')[0], 16)",
            'except (OSError, ValueError):',
            '    start = 0x400000',
            'class iovec(ctypes.Structure):',
            "    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]",
            'buf = ctypes.create_string_buffer(64)',
            'local = iovec(ctypes.cast(buf, ctypes.c_void_p), 64)',
            'remote = iovec(start, 64)'
          ].join('\n'),
          `libc.syscall(${nr('process_vm_readv')}, pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)`
        )
      )
    ],
    expect: printed('-1 EPERM'),
    evidence: kernelAllowed('process_vm_readv of a host process')
  }
]

const privileges: EscapeCase[] = [
  {
    id: 'priv-setuid-copy',
    area: 'privilege',
    attack: 'cp /usr/bin/id; chmod 4755: a setuid binary owned by the uid code runs as',
    regression: true,
    unisolated: 'holds',
    attempt: () => [sh('cp /usr/bin/id suid-id && chmod 4755 suid-id && ./suid-id -u')],
    expect: (outcome, ctx) => printed(String(lstatSync(join(ctx.workspace, 'suid-id')).uid))(outcome),
    evidence: (outcome, ctx) => {
      const stat = lstatSync(join(ctx.workspace, 'suid-id'), { throwIfNoEntry: false })
      return stat?.uid === 0 || outcome.stdout.trim() === '0' ? ['a root setuid file or root euid'] : []
    }
  },
  {
    id: 'priv-capabilities',
    area: 'privilege',
    attack: 'hold capabilities or be allowed to gain privileges (setuid-root programs, file capabilities)',
    unisolated: 'escapes',
    // no_new_privs from prctl, not /proc/self/status: gVisor's status file does not show it.
    attempt: () => [
      sh(`grep -E '^CapEff:' /proc/self/status | tr -s '\\t' ' '; python3 -c "import ctypes; print('NoNewPrivs:', ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))"`)
    ],
    expect: printed('CapEff: 0000000000000000\nNoNewPrivs: 1'),
    evidence: (outcome) => (outcome.stdout.includes('NoNewPrivs: 1') && outcome.stdout.includes('CapEff: 0000000000000000') ? [] : ['privileges can be gained'])
  },
  {
    id: 'priv-runs-as-root',
    area: 'privilege',
    attack: 'code runs as root (uid 0 on the host)',
    regression: true,
    unisolated: 'holds',
    attempt: (ctx) => [sh(`id -u; touch owned-${ctx.caseId}`)],
    expect: (outcome, ctx) => printed(String(lstatSync(join(ctx.workspace, `owned-${ctx.caseId}`)).uid))(outcome),
    evidence: (_outcome, ctx) =>
      lstatSync(join(ctx.workspace, `owned-${ctx.caseId}`), { throwIfNoEntry: false })?.uid === 0 ? ['a file owned by host root'] : []
  }
]

const devices: EscapeCase[] = [
  {
    id: 'dev-mknod',
    area: 'devices',
    attack: 'create a device node (/dev/mem) in the workspace',
    unisolated: 'holds',
    attempt: (ctx) => [
      py(
        `import errno, os, stat\ntry:\n    os.mknod('pwned-${ctx.caseId}-mem', stat.S_IFCHR | 0o666, os.makedev(1, 1))\n    print('made')\nexcept OSError as e:\n    print(errno.errorcode[e.errno])`
      )
    ],
    expect: printed('EPERM')
  },
  {
    id: 'dev-raw-open',
    area: 'devices',
    attack: 'open raw memory and disk devices (/dev/mem, /dev/port, /dev/vda, /dev/sda, ...)',
    unisolated: 'holds',
    attempt: () => [
      py(
        [
          'opened = []',
          "for path in ['/dev/mem', '/dev/kmem', '/dev/port', '/dev/vda', '/dev/sda', '/dev/nvme0n1', '/dev/dm-0', '/dev/loop0', '/dev/sr0']:",
          '    try:',
          "        open(path, 'rb').close()",
          '        opened.append(path)',
          '    except OSError:',
          '        pass',
          "print('opened:', ' '.join(opened))"
        ].join('\n')
      )
    ],
    expect: printed('opened:'),
    evidence: (outcome) => (/opened: \S/.test(outcome.stdout) ? [`raw devices opened: ${outcome.stdout.trim()}`] : [])
  }
]

/** The whole corpus: every case, each run on every provider it applies to. */
export const escapeCorpus: EscapeCase[] = [
  ...filesystem,
  ...fileToolCases,
  ...raceCases,
  ...processes,
  ...privileges,
  ...devices,
  ...kernelCases,
  ...limitCases
]
