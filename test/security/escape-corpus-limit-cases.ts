// The escape corpus (see escape-corpus-cases.ts), what bounds a run: resource limits and survivors,
// the files the sandbox itself is made of (launcher programs, Airlock's sandbox code, the run
// ledger, the host-kept .airlock/ and the launcher's descriptors and environment), and the paths
// the host reads back from a run or a container shows (declared outputs, mount sources).
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { escapesWhen, printed, printedOn, py, sh, tool, unprivileged, type EscapeCase, type Outcome } from './escape-corpus-case'

const repoRoot = join(__dirname, '..', '..')
const digest = (path: string) => (existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'absent')
/** Host programs the sandboxes launch through: their digests before any case ran. */
const launcherFiles = ['/usr/bin/bwrap', '/usr/bin/prlimit', '/usr/bin/bash', '/usr/bin/dash', process.execPath]
/** Airlock's sandbox code: only whether it can be opened for writing is judged (others edit and rebuild it while tests run). */
const airlockFiles = [
  'src/main/providers/bubblewrap/seccomp-filter.ts',
  'src/main/providers/bubblewrap/sandbox-command.ts',
  'src/main/providers/docker/seccomp-profile.ts',
  'src/main/core/sandbox/syscall-denylist.ts',
  'out/main/index.js'
].map((path) => join(repoRoot, path))
const digestsBefore = Object.fromEntries(launcherFiles.map((path) => [path, digest(path)]))

/** Python that opens each path for appending (never writing) and prints `<path> <errno name or opened>`. */
const openForWrite = (paths: string[]) =>
  [
    'import errno, os',
    `for path in ${JSON.stringify(paths)}:`,
    '    try:',
    '        os.close(os.open(path, os.O_WRONLY | os.O_APPEND))',
    "        print(path, 'opened')",
    '    except OSError as e:',
    '        print(path, errno.errorcode[e.errno])'
  ].join('\n')
const changedDigests = (paths: string[]) => paths.filter((path) => digest(path) !== digestsBefore[path]).map((path) => `${path} was changed`)
const opened = (outcome: Outcome) =>
  outcome.stdout
    .split('\n')
    .filter((line) => line.endsWith(' opened'))
    .map((line) => `${line} for writing`)

/** The result of a call that a resource limit ended: status error with the limit's code. */
const endedByLimit = (limit: string) => (outcome: Outcome) =>
  expect(outcome.last).toMatchObject({ ok: false, status: 'error', error: { code: `resource_limit.${limit}` } })

const limits: EscapeCase[] = [
  {
    id: 'limit-fork-bomb-python',
    area: 'limits',
    attack: 'a fork bomb written in Python (no shell pattern for the policy to match)',
    unisolated: 'not_run',
    alone: true,
    attempt: (ctx) => [
      py(
        [
          'import errno, os',
          'n = 0',
          "err = 'none'",
          'for i in range(2000):',
          '    try:',
          '        pid = os.fork()',
          '    except OSError as e:',
          '        err = errno.errorcode[e.errno]',
          '        break',
          '    if pid == 0:',
          `        os.execv('/bin/sleep', ['sleep', '${ctx.sleepMarker}'])`,
          '    n += 1',
          "print('forked', 'fewer than 64' if n < 64 else n, err)"
        ].join('\n')
      )
    ],
    // The run ends by itself once fork fails; the provider names the limit it hit.
    expect: (outcome, ctx) => {
      expect(outcome.stdout).toBe('forked fewer than 64 EAGAIN\n')
      // gVisor holds processes in its own kernel (RLIMIT_NPROC): forks fail and the run goes on, unless the
      // host cgroup around the whole sandbox (its kernel's tasks and memory for 64 processes) ends it first.
      if (ctx.providerId === 'gvisor')
        expect(outcome.last.status === 'success' || /^resource_limit\.(pids|memory)$/.test(outcome.last.error?.code ?? '')).toBe(true)
      else expect(outcome.last).toMatchObject({ status: 'error', error: { code: 'resource_limit.pids' } })
    },
    evidence: (outcome) => (/forked \d+/.test(outcome.stdout) ? [`no process limit: ${outcome.stdout.trim()}`] : [])
  },
  {
    id: 'limit-fork-bomb-shell',
    area: 'limits',
    attack: 'the classic shell fork bomb',
    unisolated: 'not_run',
    attempt: () => [sh(':(){ :|:& };:')],
    expect: (outcome) => expect(outcome.last).toMatchObject({ ok: false, status: 'blocked', meta: { policy: { rule: 'deny.fork_bomb' } } })
  },
  {
    id: 'limit-memory-hog',
    area: 'limits',
    attack: 'allocate and touch 1 GiB under a 256 MB limit',
    unisolated: 'not_run',
    alone: true,
    attempt: () => [py("data = b'\\x01' * (1024 * 1024 * 1024)\nprint('allocated', len(data))")],
    expect: endedByLimit('memory'),
    evidence: (outcome) => (outcome.stdout.includes('allocated') ? ['1 GiB was allocated under a 256 MB limit'] : [])
  },
  {
    id: 'limit-cpu',
    area: 'limits',
    attack: 'four spinning processes under a 2 CPU-second budget',
    regression: true,
    unisolated: 'not_run',
    alone: true,
    limits: { cpuSeconds: 2, timeoutSeconds: 30 },
    attempt: () => [sh('for i in 1 2 3 4; do (while :; do :; done) & done; wait')],
    expect: (outcome) => {
      endedByLimit('cpu')(outcome)
      expect(outcome.last.meta.durationMs as number).toBeLessThan(12_000)
    }
  },
  {
    id: 'limit-disk-fill',
    area: 'limits',
    attack: 'fill the workspace past its 16 MB disk quota',
    unisolated: 'not_run',
    limits: { diskMb: 16 },
    attempt: () => [sh('head -c 48M /dev/zero > fill.bin; echo rc=$?'), tool('write_file', { path: 'after.txt', content: 'more' })],
    expect: (outcome) => {
      const [fill, write] = outcome.results
      // Stopped while it wrote (the quota holds during the run) or, when it wrote faster than one look, found over after it.
      expect(fill).toMatchObject({ ok: false, status: 'error', error: { code: 'workspace_file.quota_exceeded' } })
      expect(write).toMatchObject({ ok: false, status: 'blocked', error: { code: 'workspace_file.quota_exceeded' } })
    },
    evidence: (outcome) => (outcome.results.every((result) => result.ok) ? ['the workspace went over its quota unnoticed'] : [])
  },
  {
    id: 'limit-output-flood',
    area: 'limits',
    attack: 'flood stdout and stderr with 8 MB each under a 64 KiB output limit',
    unisolated: 'holds',
    attempt: () => [sh("head -c 8000000 /dev/zero | tr '\\0' x; head -c 8000000 /dev/zero | tr '\\0' y >&2")],
    expect: (outcome) => {
      expect(outcome.last).toMatchObject({ status: 'success', data: { stdoutTruncated: true, stderrTruncated: true } })
    },
    evidence: (outcome, ctx) => {
      const data = outcome.last.data as { stdout?: string; stderr?: string }
      const detail = ctx.detail(outcome.last.meta.callId as string)
      const sizes = [data.stdout, data.stderr, detail.stdout.text, detail.stderr.text].map((text) => Buffer.byteLength(text ?? ''))
      return sizes.some((size) => size > 64 * 1024 + 1024) ? [`output beyond the limit reached the agent or the record (${sizes.join(', ')} bytes)`] : []
    }
  },
  {
    id: 'limit-survivor-setsid',
    area: 'limits',
    attack: 'a setsid background process outlives its call',
    unisolated: escapesWhen(!unprivileged.runCgroup),
    attempt: (ctx) => [sh(`setsid sleep ${ctx.sleepMarker} > /dev/null 2>&1 < /dev/null & echo started`)],
    expect: printed('started')
  },
  {
    id: 'limit-survivor-nohup',
    area: 'limits',
    attack: 'a nohup background process outlives its call',
    unisolated: escapesWhen(!unprivileged.runCgroup),
    attempt: (ctx) => [sh(`nohup sleep ${ctx.sleepMarker} > /dev/null 2>&1 & echo started`)],
    expect: printed('started')
  },
  {
    id: 'limit-survivor-daemon',
    area: 'limits',
    attack: 'a double-forked daemon in its own session, its output closed, outlives a run_code call',
    unisolated: escapesWhen(!unprivileged.runCgroup),
    attempt: (ctx) => [
      py(
        `import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.closerange(0, 3)\n        os.execv('/bin/sleep', ['sleep', '${ctx.sleepMarker}'])\n    os._exit(0)\nos.wait()\nprint('started')`
      )
    ],
    expect: printed('started')
  },
  {
    id: 'limit-survivor-timeout',
    area: 'limits',
    attack: 'a TERM-ignoring process in its own session survives its 1 s timeout',
    regression: true,
    unisolated: escapesWhen(!unprivileged.runCgroup),
    attempt: (ctx) => [sh(`trap '' TERM; setsid bash -c "trap '' TERM; sleep ${ctx.sleepMarker}" </dev/null >/dev/null 2>&1 & sleep ${ctx.sleepMarker}`, 1)],
    expect: (outcome) => expect(outcome.last).toMatchObject({ status: 'timed_out', data: { exitCode: 124 } })
  }
]

const launcher: EscapeCase[] = [
  {
    id: 'launch-host-programs',
    area: 'launcher',
    attack: 'open for writing the host programs every sandbox launch runs (bwrap, prlimit, bash, sh, node)',
    unisolated: 'holds',
    attempt: () => [py(openForWrite(launcherFiles))],
    // The sandbox uid may not write them (in docker they are the image's own, and bwrap is not there).
    expect: (outcome, ctx) =>
      printed(launcherFiles.map((path) => `${path} ${ctx.providerId === 'docker' && path === '/usr/bin/bwrap' ? 'ENOENT' : 'EACCES'}`).join('\n'))(outcome),
    evidence: (outcome) => [...opened(outcome), ...changedDigests(launcherFiles)]
  },
  {
    id: 'launch-airlock-code',
    area: 'launcher',
    attack: "open for writing Airlock's own seccomp filter, syscall deny list and built code",
    unisolated: escapesWhen(airlockFiles.some((path) => unprivileged.canWrite(path))),
    attempt: () => [py(openForWrite(airlockFiles))],
    expect: (outcome) => {
      expect(outcome.last.status).toBe('success')
      for (const line of outcome.stdout.trim().split('\n')) expect(line).toMatch(/ ENOENT$/)
    },
    evidence: opened
  },
  {
    id: 'launch-run-ledger',
    area: 'launcher',
    attack: "plant a record in Airlock's run ledger (<home>/runs), which start-up recovery acts on",
    unisolated: escapesWhen(!unprivileged.ownUid),
    attempt: (ctx) => [
      sh(`echo '{"providerId":"bubblewrap","pid":${ctx.canary.pid},"startTicks":"1"}' > ${ctx.home}/runs/pwned-${ctx.caseId}.json; echo rc=$?`)
    ],
    expect: printed('rc=1')
  },
  {
    id: 'launch-execution-areas',
    area: 'launcher',
    attack: "write into the workspace's host-kept .airlock/ (an earlier run's execution area, a new area)",
    unisolated: escapesWhen(!unprivileged.ownUid),
    // An earlier run_code made .airlock/ (its areas are gone once it ended).
    prepare: () => [py("print('an earlier run')")],
    attempt: (ctx) => [sh(`mkdir .airlock/executions/pwned-${ctx.caseId}; echo rc=$?; echo x > .airlock/pwned-${ctx.caseId}; echo rc=$?`)],
    expect: (outcome, ctx) => {
      printed('rc=1\nrc=1')(outcome)
      // bubblewrap and gvisor cover .airlock/ with an empty read-only tmpfs; docker leaves the host's, which the sandbox uid may not write.
      expect(outcome.stderr).toMatch(
        ctx.providerId !== 'docker' ? /No such file or directory[\s\S]*Read-only file system/ : /Permission denied[\s\S]*Permission denied/
      )
    }
  },
  {
    id: 'launch-inherited-fds',
    area: 'launcher',
    attack: "reach host files through descriptors the launcher or the sandbox's init left open",
    regression: true,
    unisolated: 'holds',
    attempt: () => [
      py(
        [
          'import os',
          'found = []',
          "for pid in ['self', '1']:",
          '    try:',
          "        fds = os.listdir(f'/proc/{pid}/fd')",
          '    except OSError:',
          '        continue',
          '    for fd in fds:',
          '        try:',
          "            target = os.readlink(f'/proc/{pid}/fd/{fd}')",
          '        except OSError:',
          '            continue',
          "        if target.startswith('/') and target != '/dev/null' and not target.startswith('/proc/') and not target.startswith('/dev/pts/'):",
          "            found.append(f'{pid}:{fd} -> {target}')",
          "print('host paths:', ' '.join(found) or 'none')"
        ].join('\n')
      )
    ],
    expect: printed('host paths: none'),
    evidence: (outcome) => (outcome.stdout.includes('host paths: none') ? [] : [outcome.stdout.trim()])
  },
  {
    id: 'launch-environment',
    area: 'launcher',
    attack: "read Airlock's environment (env, /proc/1/environ, the parent's environ)",
    unisolated: 'holds',
    attempt: () => [sh("env; cat /proc/1/environ /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n'; echo rc=0")],
    expect: (outcome) => {
      expect(outcome.last.status).toBe('success')
      expect(outcome.stdout).toMatch(/^PATH=/m)
    },
    evidence: (outcome) => (/VITEST|AIRLOCK_CORPUS|AIRLOCK_HOME|NODE_OPTIONS/.test(outcome.stdout) ? ["Airlock's environment reached the run"] : [])
  }
]

const mountedPaths: EscapeCase[] = [
  {
    id: 'output-symlink',
    area: 'mounted-paths',
    attack: "a declared output that is a symlink to a host secret: the host's output collection follows it",
    unisolated: 'holds',
    attempt: (ctx) => [
      py(`import os\nos.symlink('${ctx.outside}/secret.txt', '../output/leak.txt')\nprint('planted')`, { expectedOutputs: ['output/leak.txt'] })
    ],
    expect: (outcome) => expect(outcome.last).toMatchObject({ ok: false, status: 'error', error: { code: expect.stringMatching(/^expected_output/) } })
  },
  {
    id: 'output-dir-symlink',
    area: 'mounted-paths',
    attack: 'a declared output below a directory symlink to a host folder',
    unisolated: 'holds',
    attempt: (ctx) => [py(`import os\nos.symlink('${ctx.outside}', '../output/sub')\nprint('planted')`, { expectedOutputs: ['output/sub/secret.txt'] })],
    expect: (outcome) => expect(outcome.last).toMatchObject({ ok: false, status: 'error', error: { code: expect.stringMatching(/^expected_output/) } })
  },
  {
    id: 'output-fifo',
    area: 'mounted-paths',
    attack: 'a declared output that is a FIFO: the host blocks forever opening it',
    unisolated: 'holds',
    attempt: () => [py("import os\nos.mkfifo('../output/leak')\nprint('planted')", { expectedOutputs: ['output/leak'] })],
    expect: (outcome) => expect(outcome.last).toMatchObject({ ok: false, status: 'error', error: { code: expect.stringMatching(/^expected_output/) } })
  },
  {
    id: 'container-host-paths',
    area: 'mounted-paths',
    attack: "reach the host directories the container's mount table names (overlay upper/lower/work dirs, bind sources)",
    unisolated: 'not_run',
    only: 'docker',
    attempt: () => [
      py(
        [
          'import os, re',
          'paths = set()',
          "for line in open('/proc/self/mountinfo'):",
          "    fields = line.split(' - ')",
          "    paths.update(p for p in re.findall(r'(?:upperdir|lowerdir|workdir)=([^,\\s]+)', line) for p in p.split(':'))",
          '    paths.add(fields[0].split()[3])',
          "paths = sorted(p for p in paths if p.startswith('/var/lib/docker') or p.startswith('/docker'))",
          'reached = [p for p in paths if os.path.isdir(p) and os.access(p, os.R_OK)]',
          "print(len(paths) > 0, 'reached:', ' '.join(reached) or 'none')"
        ].join('\n')
      )
    ],
    expect: printedOn({ docker: 'True reached: none' }),
    evidence: (outcome) => (outcome.stdout.includes('reached: none') ? [] : [outcome.stdout.trim()])
  },
  {
    id: 'container-keeper',
    area: 'mounted-paths',
    attack: "kill the container's keeper (its init and the process that keeps it up)",
    unisolated: 'not_run',
    only: 'docker',
    attempt: () => [sh('kill -KILL 1; a=$?; kill -KILL $(cat /proc/1/task/1/children); echo "$a $?"')],
    expect: printedOn({ docker: '1 1' })
  }
]

/** Limits, the sandbox's own files, and paths read back from a run. */
export const limitCases: EscapeCase[] = [...limits, ...launcher, ...mountedPaths]
