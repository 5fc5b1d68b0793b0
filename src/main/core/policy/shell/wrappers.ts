/**
 * Wrappers: programs that run another program (`sudo`, `env X=1`, `nice`, `timeout 5`, `xargs`,
 * `find -exec`, `busybox`, `chroot DIR`, …) or a script (`sh -c STRING`, `eval`, `su -c`,
 * `script -c`, `watch`, `flock FILE -c`). `peelWrappers` looks through them: the effective command
 * is what runs, and each wrapper's own words are kept (`CommandWrapper`) so rules can still deny
 * `sudo`. A script becomes a `script` invocation the walk parses as shell code. Options are read
 * per program (which options take a value), so `sudo -u root rm` finds `rm`, not `root`. Shells
 * are known by name with a version suffix (`ksh93`, `bash5`). Under `xargs`, words holding the
 * `-I` string and an `sh -c` without its script are filled from stdin (not static / code from
 * stdin). Tracers, sandboxes, `trap`, `coproc`, `parallel`… are in `operand-wrappers.ts`.
 */
import type { CommandWrapper } from '../command-analysis'
import { options } from './wrapper-options'
import { peelMore } from './operand-wrappers'
import type { EvalWord } from './words'

/** What every invocation carries: the wrappers it runs under, its variable assignments, whether stdin adds arguments. */
type InvocationContext = { wrappers: CommandWrapper[]; assignments: { name: string; value: EvalWord }[]; argsFromStdin: boolean }

/** A program to run, after its wrappers. */
export type RunInvocation = InvocationContext & {
  kind: 'run'
  argv: EvalWord[]
  /** It reads code from stdin: a shell (`sh`, `bash -s`, `bash -`) or an interpreter (`python3 -`). */
  stdinScript: 'shell' | 'interpreter' | null
  /** Words whose content is code or a script path (`sh FILE`, `source FILE`, `python -c CODE`). */
  scriptWords: EvalWord[]
  /** Why part of what it runs is only known at run time (`sed e`, a makefile from stdin): `command.dynamic`. */
  concern?: string
  /**
   * How its stdin becomes shell code when a static `echo` pipes it (`echo 'git push' | at now`,
   * the command part of crontab lines, the `!` escapes of ed/ex/gdb lines); `opaque` asks.
   */
  stdinCode?: (text: string) => { code: string[]; opaque: boolean }
}

/** Shell code to parse (`sh -c STRING`, `eval ARGS`, `su -c STRING`, `watch ARGS`, `alias x=VALUE`). */
export type ScriptInvocation = InvocationContext & {
  kind: 'script'
  /** The code: the words joined with spaces, as `eval` does. Its wrappers are the outer ones plus the one that runs the code (`['bash', '-lc']`). */
  words: EvalWord[]
  /** The program that runs the code, emitted as a command when the code is not static. */
  runner: EvalWord[]
  /** Set for `alias NAME=VALUE` (a `command.alias` concern). */
  alias?: string
}

export type Invocation = RunInvocation | ScriptInvocation

/** A command still to peel, with what its outer wrappers gave it. */
export type Branch = Omit<RunInvocation, 'kind' | 'stdinScript' | 'scriptWords'>

const shells = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'pdksh',
  'oksh',
  'ash',
  'rbash',
  'fish',
  'yash',
  'posh',
  'tcsh',
  'csh',
  'pwsh',
  'powershell'
])
/** `ksh93`, `bash5`, `bash-5.2` are their shells. */
const isShell = (name: string): boolean => shells.has(name.replace(/-?[0-9.]+$/, ''))
const interpreterCode: Record<string, string[]> = {
  python: ['-c', '-m'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  node: ['-e', '-p', '--eval', '--print'],
  nodejs: ['-e', '-p', '--eval', '--print'],
  php: ['-r'],
  lua: ['-e']
}
const maxPeels = 32

/** The file name of a program word (`/usr/bin/sudo` → `sudo`). */
export function programName(word: EvalWord | undefined): string {
  if (!word) return ''
  const slash = word.value.lastIndexOf('/')
  return slash >= 0 ? word.value.slice(slash + 1) : word.value
}

/** Looks through the wrappers in front of a command; returns what runs (find gives several). */
export function peelWrappers(argv: EvalWord[], assignments: Branch['assignments'] = [], stdinText?: string): Invocation[] {
  const out: Invocation[] = []
  const pending: Branch[] = [{ argv, wrappers: [], assignments, argsFromStdin: false }]
  let peels = 0
  while (pending.length > 0) {
    const branch = pending.pop() as Branch
    const step = peels++ < maxPeels ? peelOne(branch, out, stdinText) : null
    if (step) pending.push(...step)
    else if (step === null) out.push(run(branch))
  }
  return out
}

/** One wrapper: the branches to continue with, [] when handled, or null when `branch` itself runs. */
function peelOne(b: Branch, out: Invocation[], stdinText?: string): Branch[] | null {
  const { argv } = b
  const name = programName(argv[0])
  const inner = (index: number, extra?: Partial<Branch>): Branch[] | null =>
    index < argv.length ? [{ ...b, ...extra, argv: argv.slice(index), wrappers: [...b.wrappers, wrapper(argv, index)] }] : null
  const script = (at: number, runnerEnd: number, words?: EvalWord[]): Branch[] => {
    const word = argv[at]
    const code = words ?? (word ? [word] : [])
    const wrapperWords = argv.slice(0, runnerEnd).filter((w) => !code.includes(w))
    out.push({ ...b, kind: 'script', words: code, runner: argv, wrappers: [...b.wrappers, { argv: wrapperWords.map((w) => w.value) }] })
    return []
  }
  if (isShell(name) || ((name === 'busybox' || name === 'toybox') && isShell(programName(argv[1]))))
    return peelShell(b, out, name === 'busybox' || name === 'toybox' ? 1 : 0)
  if (/^python[0-9.]*$/.test(name) || Object.hasOwn(interpreterCode, name)) {
    out.push(interpreter(b, (Object.hasOwn(interpreterCode, name) ? interpreterCode[name] : undefined) ?? ['-c', '-m']))
    return []
  }
  switch (name) {
    case 'env': {
      const o = options(argv, 'uCSP', ['unset', 'chdir', 'split-string'])
      let i = o.index
      // `env -` is `env -i`; `options` stops at it.
      while (argv[i]?.value === '-') i++
      const assignments = [...b.assignments]
      for (; i < argv.length; i++) {
        const word = argv[i] as EvalWord
        // env takes any word with `=` as an assignment (`BASH_FUNC_f%%=() { …; }` too).
        const eq = /^([^=]+)=([\s\S]*)$/.exec(word.value)
        if (!eq) break
        assignments.push({ name: eq[1] ?? '', value: { ...word, value: eq[2] ?? '' } })
      }
      const split = o.values.get('S') ?? o.values.get('split-string')
      if (split !== undefined) {
        const at = o.at.get('S') ?? o.at.get('split-string')
        const word = (at === undefined ? undefined : argv[at]) ?? { value: split, static: argv.every((x) => x.static), source: { subs: [], feeds: [] } }
        return script(-1, i, [word, ...argv.slice(i)])
      }
      return inner(i, { assignments })
    }
    case 'sudo': {
      const o = options(argv, 'ugCDpRrtTU', [
        'user',
        'group',
        'close-from',
        'chdir',
        'prompt',
        'chroot',
        'role',
        'type',
        'command-timeout',
        'other-user',
        'host'
      ])
      if (o.flags.has('e') || o.flags.has('edit')) return null
      let i = o.index
      while (i < argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i]?.value ?? '')) i++
      return inner(i)
    }
    case 'doas':
      return inner(options(argv, 'uC', []).index)
    case 'pkexec':
      return inner(options(argv, '', ['user']).index)
    case 'su':
    case 'runuser': {
      const o = options(argv, 'cgGswu', ['command', 'session-command', 'shell', 'group', 'supp-group', 'whitelist-environment', 'user'])
      const code = o.at.get('c') ?? o.at.get('command') ?? o.at.get('session-command')
      if (code !== undefined) return script(code, argv.length)
      return name === 'runuser' && o.values.has('u') ? inner(o.index) : null
    }
    case 'nice':
      return inner(options(argv, 'n', ['adjustment']).index)
    case 'ionice': {
      const o = options(argv, 'cnpPu', ['class', 'classdata', 'pid', 'pgid', 'uid'])
      return ['p', 'P', 'u', 'pid', 'pgid', 'uid'].some((k) => o.values.has(k)) ? null : inner(o.index)
    }
    case 'timeout':
      return inner(options(argv, 'sk', ['signal', 'kill-after']).index + 1)
    case 'nohup':
    case 'setsid':
    case 'builtin':
      return inner(options(argv, '', []).index)
    case 'time':
      return inner(options(argv, 'fo', ['format', 'output']).index)
    case 'stdbuf':
      return inner(options(argv, 'ioe', ['input', 'output', 'error']).index)
    case 'exec':
      return inner(options(argv, 'a', []).index)
    case 'command': {
      const o = options(argv, '', [])
      return o.flags.has('v') || o.flags.has('V') ? null : inner(o.index)
    }
    case 'xargs': {
      const o = options(argv, 'adEILnPs', ['arg-file', 'delimiter', 'eof', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'])
      const replace = o.values.get('I') ?? o.values.get('replace') ?? (o.flags.has('i') || o.flags.has('replace') ? '{}' : undefined)
      const next = inner(o.index, { argsFromStdin: true })
      // Words holding the replace string (`-I% sh -c %`) are filled from stdin: not known here.
      if (next && replace) for (const x of next) x.argv = x.argv.map((word) => (word.value.includes(replace) ? { ...word, static: false } : word))
      return next
    }
    case 'busybox':
      return inner(1)
    case 'chroot':
      return inner(options(argv, '', ['userspec', 'groups']).index + 1)
    case 'watch': {
      const o = options(argv, 'nq', ['interval', 'equexit'])
      if (o.flags.has('x') || o.flags.has('exec')) return inner(o.index)
      return o.index < argv.length ? script(-1, o.index, argv.slice(o.index)) : null
    }
    case 'flock': {
      const o = options(argv, 'wEc', ['timeout', 'wait', 'conflict-exit-code', 'command'])
      const next = argv[o.index + 1]?.value
      if (next === '-c' || next === '--command') return script(o.index + 2, argv.length)
      const code = o.at.get('c') ?? o.at.get('command')
      if (code !== undefined) return script(code, argv.length)
      return inner(o.index + 1)
    }
    case 'script': {
      const o = options(argv, 'cEIOBTm', ['command', 'echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format'])
      const code = o.at.get('c') ?? o.at.get('command')
      return code !== undefined ? script(code, argv.length) : null
    }
    case 'eval':
      return argv.length > 1 ? script(-1, 1, argv.slice(1)) : null
    case 'find':
      return peelFind(b, out)
    default:
      return peelMore(b, out, name, stdinText) ?? null
  }
}

function peelShell(b: Branch, out: Invocation[], offset: number): Branch[] {
  const { argv } = b
  let i = offset + 1
  let fromC = false
  let fromStdin = false
  const startup: EvalWord[] = []
  for (; i < argv.length; i++) {
    const v = argv[i]?.value ?? ''
    if (v === '--') {
      i++
      break
    }
    if (v === '-') {
      fromStdin = true
      break
    }
    if (v.startsWith('--')) {
      // `--rcfile FILE` is code the shell runs first (`--rcfile <(…)` carries another command's output).
      if (v === '--rcfile' || v === '--init-file') {
        const file = argv[++i]
        if (file) startup.push(file)
      }
      continue
    }
    if (!/^[-+]./.test(v)) break
    if (v.includes('c')) fromC = true
    if (v.includes('s')) fromStdin = true
    if (/[oO]/.test(v)) i++
  }
  const wrappers = [...b.wrappers, ...(offset ? [wrapper(argv, offset)] : [])]
  if (fromC && i < argv.length) {
    out.push({ ...b, kind: 'script', words: [argv[i] as EvalWord], runner: argv, wrappers: [...wrappers, { argv: argv.slice(offset, i).map((w) => w.value) }] })
    return []
  }
  if (fromC && b.argsFromStdin) {
    // `xargs sh -c`: the script is the first word xargs reads from stdin.
    out.push({ ...run(b), argv: argv.slice(offset), wrappers, stdinScript: 'shell', scriptWords: [] })
    return []
  }
  const operand = argv[i]
  const stdin = !fromC && (fromStdin || !operand || operand.value === '/dev/stdin')
  out.push({
    ...run(b),
    argv: argv.slice(offset),
    wrappers,
    stdinScript: stdin ? 'shell' : null,
    scriptWords: [...startup, ...(operand && !fromStdin ? [operand] : [])]
  })
  return []
}

function peelFind(b: Branch, out: Invocation[]): Branch[] {
  const { argv } = b
  const branches: Branch[] = []
  out.push(run(b))
  for (let i = 1; i < argv.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(argv[i]?.value ?? '')) continue
    let end = i + 1
    while (end < argv.length && (argv[end]?.value ?? '') !== ';' && (argv[end]?.value ?? '') !== '+') end++
    if (end > i + 1) {
      branches.push({ ...b, argv: argv.slice(i + 1, end), wrappers: [...b.wrappers, wrapper(argv, i + 1)] })
    }
    i = end
  }
  return branches
}

function interpreter(b: Branch, codeFlags: string[]): RunInvocation {
  const { argv } = b
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]?.value ?? ''
    const flag = codeFlags.find((f) => v === f || (f.length === 2 && v.startsWith(f)))
    if (flag) return { ...run(b), scriptWords: [(v === flag ? argv[i + 1] : undefined) ?? (argv[i] as EvalWord)] }
    if (v === '-') return { ...run(b), stdinScript: 'interpreter' }
    if (v === '-W' || v === '-X' || v === '-r' || v === '--require') {
      i++
      continue
    }
    if (!v.startsWith('-')) return { ...run(b), scriptWords: [argv[i] as EvalWord] }
  }
  return { ...run(b), stdinScript: 'interpreter' }
}

function run(b: Branch): RunInvocation {
  const name = programName(b.argv[0])
  const isSource = name === 'source' || name === '.'
  const operand = b.argv[1]
  return {
    kind: 'run',
    ...b,
    stdinScript: isSource && (operand?.value === '/dev/stdin' || operand?.value === '-') ? 'shell' : null,
    scriptWords: isSource && operand ? [operand] : []
  }
}

function wrapper(argv: EvalWord[], end: number): CommandWrapper {
  return { argv: argv.slice(0, end).map((w) => w.value) }
}
