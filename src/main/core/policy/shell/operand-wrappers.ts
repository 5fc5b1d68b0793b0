/**
 * Wrappers that run an operand (see `wrappers.ts` for the common ones): tracers and sandboxes (`strace`,
 * `ltrace`, `valgrind`, `gdb --args`, `unshare`, `nsenter`, `taskset`, `chrt`, `prlimit`,
 * `fakeroot`, `faketime`, `proxychains`, `torsocks`, `firejail`, `systemd-run`,
 * `systemd-inhibit`, `caffeinate`, `runcon`, `unbuffer`, `toybox`), builtins whose argument is
 * code (`trap CODE SIG`, `mapfile -C CODE`, `compgen -C/-F`, `complete -C/-F`, `sg GROUP -c CODE`),
 * `coproc [NAME] CMD`, a reserved word the grammar took as a command name (`do rm`), and GNU
 * `parallel` (its command and `:::` arguments form shell code; without `:::` it reads stdin).
 */
import type { CommandWrapper } from '../command-analysis'
import { options, type Options } from './wrapper-options'
import { peelCode } from './code-options'
import type { Branch, Invocation } from './wrappers'
import type { EvalWord } from './words'

type Step = Branch[] | null

/** Option letters and long names that take a value, per plain wrapper (operand = the command). */
const plain: Record<string, [string, string[]]> = {
  strace: ['IbeOSUaosXPpEu', ['output', 'signal', 'trace', 'status', 'string-limit', 'user', 'env', 'attach', 'trace-path']],
  ltrace: ['aADeFlnopsuwx', ['output', 'library']],
  valgrind: ['', []],
  unshare: ['RwSGl', ['root', 'wd', 'setuid', 'setgid', 'propagation', 'setgroups', 'map-user', 'map-group', 'map-users', 'map-groups', 'load-interp']],
  nsenter: ['tSGwr', ['target', 'setuid', 'setgid', 'wd', 'wdns', 'root', 'env']],
  prlimit: ['po', ['pid', 'output']],
  fakeroot: ['lsib', ['lib', 'faked', 'save-file', 'load-file']],
  proxychains: ['f', []],
  proxychains4: ['f', []],
  torsocks: ['upaP', ['user', 'pass', 'address', 'port']],
  firejail: ['', []],
  'systemd-run': [
    'upMHES',
    [
      'unit',
      'property',
      'machine',
      'host',
      'setenv',
      'description',
      'slice',
      'uid',
      'gid',
      'nice',
      'working-directory',
      'on-calendar',
      'on-active',
      'on-boot',
      'on-startup',
      'on-unit-active',
      'on-unit-inactive',
      'timer-property',
      'path-property',
      'socket-property',
      'service-type',
      'expand-environment'
    ]
  ],
  'systemd-inhibit': ['', ['what', 'who', 'why', 'mode']],
  caffeinate: ['tw', []],
  unbuffer: ['', []],
  toybox: ['', []],
  linux32: ['', []],
  linux64: ['', []],
  i386: ['', []],
  x86_64: ['', []],
  setpriv: [
    '',
    [
      'reuid',
      'regid',
      'groups',
      'inh-caps',
      'ambient-caps',
      'bounding-set',
      'securebits',
      'selinux-label',
      'apparmor-profile',
      'pdeathsig',
      'landlock-access',
      'landlock-rule',
      'seccomp-filter'
    ]
  ],
  'ssh-agent': ['aEPt', []],
  'dbus-run-session': ['', ['config-file', 'dbus-daemon']],
  'xvfb-run': ['nlsfepw', ['server-num', 'server-args', 'auth-file', 'error-file', 'xauth-protocol', 'wait']],
  numactl: ['CNmpiPl', ['cpunodebind', 'membind', 'physcpubind', 'interleave', 'preferred', 'localalloc']],
  catchsegv: ['', []],
  '{': ['', []],
  '!': ['', []],
  do: ['', []],
  then: ['', []],
  else: ['', []],
  elif: ['', []],
  if: ['', []],
  while: ['', []],
  until: ['', []]
}

/** The steps for the wrappers above; undefined when `name` is none of them. */
export function peelMore(b: Branch, out: Invocation[], name: string, stdinText?: string): Step | undefined {
  const { argv } = b
  const inner = (index: number, extra?: Partial<Branch>): Step =>
    index < argv.length ? [{ ...b, ...extra, argv: argv.slice(index), wrappers: [...b.wrappers, wrapper(argv, index)] }] : null
  const script = (words: EvalWord[], runnerEnd: number): Step => {
    const wrapperWords = argv.slice(0, runnerEnd).filter((x) => !words.includes(x))
    out.push({ ...b, kind: 'script', words, runner: argv, wrappers: [...b.wrappers, { argv: wrapperWords.map((x) => x.value) }] })
    return []
  }
  const spec = Object.hasOwn(plain, name) ? plain[name] : undefined
  if (spec) {
    const o = options(argv, spec[0], spec[1])
    return name === 'strace' && o.values.has('p') && o.index >= argv.length ? null : inner(o.index)
  }
  switch (name) {
    case 'gdb': {
      const at = argv.findIndex((x) => x.value === '--args')
      if (at < 0) return peelCode(b, out, name, stdinText) ?? null
      // `gdb -ex '!CMD' --args PROG`: the commands given before `--args` run too.
      peelCode(b, out, name, stdinText, true)
      return inner(at + 1)
    }
    case 'taskset': {
      const o = options(argv, '', [])
      return o.flags.has('p') || o.flags.has('pid') ? null : inner(o.index + 1)
    }
    case 'chrt': {
      const o = options(argv, 'TPD', ['sched-runtime', 'sched-period', 'sched-deadline'])
      if (o.flags.has('p') || o.flags.has('pid')) return null
      return inner(o.index + (/^\d+$/.test(argv[o.index]?.value ?? '') ? 1 : 0))
    }
    case 'faketime':
      return inner(options(argv, 'p', ['date-prog']).index + 1)
    case 'runcon': {
      const o = options(argv, 'urtl', ['user', 'role', 'type', 'range'])
      return inner(o.index + (['u', 'r', 't', 'l', 'user', 'role', 'type', 'range'].some((k) => o.values.has(k)) ? 0 : 1))
    }
    case 'coproc': {
      // `coproc NAME { …; }` / `coproc NAME while …`: a name only comes before a compound command.
      const next = argv[2]?.value ?? ''
      const named =
        /^[A-Za-z_][A-Za-z0-9_]*$/.test(argv[1]?.value ?? '') &&
        (next === '{' || next === '(' || ['while', 'until', 'if', 'for', 'select', 'case'].includes(next))
      return inner(named ? 2 : 1)
    }
    case 'sg': {
      let i = 1
      if (argv[i]?.value === '-') i++
      const code = argv[i + 1]?.value === '-c' ? argv[i + 2] : argv[i + 1]
      return code ? script([code], argv.length) : null
    }
    case 'trap': {
      const o = options(argv, '', [])
      const code = argv[o.index]
      return code && o.index + 1 < argv.length && code.value !== '-' && !/^\d+$/.test(code.value) ? script([code], argv.length) : null
    }
    case 'mapfile':
    case 'readarray':
      return codeOption(argv, options(argv, 'dnOstuCc', []), ['C'], script)
    case 'compgen':
    case 'complete':
      return codeOption(argv, options(argv, 'oAGWFCXPSD', []), ['C', 'F'], script)
    case 'parallel':
      return peelParallel(b, out)
    case 'setarch': {
      // `setarch ARCH [options] CMD`; without ARCH (`setarch -R CMD`) the architecture is the machine's.
      const o = options(argv, '', [])
      let i = o.index + 1
      while (i < argv.length && argv[i]!.value.startsWith('-')) if (argv[i++]!.value === '--') break
      return inner(i)
    }
    default:
      return peelCode(b, out, name, stdinText)
  }
}

function codeOption(argv: EvalWord[], o: Options, keys: string[], script: (words: EvalWord[], end: number) => Step): Step {
  for (const key of keys) {
    const value = o.values.get(key)
    if (value === undefined) continue
    const at = o.at.get(key)
    const word = at === undefined ? { value, static: argv.every((x) => x.static), source: { subs: [], feeds: [] } } : (argv[at] as EvalWord)
    return script([word], argv.length)
  }
  return null
}

/**
 * GNU parallel: `parallel [options] [command] [::: args…]`. The command and the arguments are
 * joined into shell code; without a command each argument is a command line; without `:::` the
 * arguments (or, without a command, the command lines) come from stdin.
 */
function peelParallel(b: Branch, out: Invocation[]): Step {
  const { argv } = b
  const o = options(argv, 'jSaIdEnNLlkP', [
    'jobs',
    'sshlogin',
    'arg-file',
    'replace',
    'delimiter',
    'eof',
    'max-args',
    'max-lines',
    'results',
    'joblog',
    'tmpdir',
    'workdir',
    'timeout',
    'retries',
    'load',
    'memfree',
    'delay',
    'colsep',
    'tagstring',
    'basefile',
    'env'
  ])
  const sep = argv.findIndex((x, i) => i >= o.index && /^:::[:+]*$/.test(x.value))
  const command = argv.slice(o.index, sep < 0 ? argv.length : sep)
  const args = sep < 0 ? [] : argv.slice(sep).filter((x) => !/^:::[:+]*$/.test(x.value))
  const fromFile = argv.some((x, i) => i >= o.index && x.value.startsWith('::::'))
  const runner = { argv: argv.slice(0, o.index).map((x) => x.value) }
  const fromStdin = sep < 0 || fromFile
  if (command.length === 0 && fromStdin) {
    out.push({ kind: 'run', ...b, argsFromStdin: true, stdinScript: 'shell', scriptWords: [] })
    return []
  }
  const unknown: EvalWord = { value: '', static: false, source: { subs: [], feeds: [] } }
  const scripts = command.length === 0 ? args.map((x) => [x]) : [[...command, ...args, ...(fromStdin ? [unknown] : [])]]
  for (const words of scripts) out.push({ ...b, kind: 'script', words, runner: argv, wrappers: [...b.wrappers, runner], argsFromStdin: fromStdin })
  return []
}

function wrapper(argv: EvalWord[], end: number): CommandWrapper {
  return { argv: argv.slice(0, end).map((w) => w.value) }
}
