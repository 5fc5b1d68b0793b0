/**
 * Programs that run code given in an option or in their own language, beyond the wrappers of
 * `wrappers.ts`: the program itself runs, and the code it carries becomes a script the walk parses
 * (static) or a `command.dynamic` concern (only known at run time). Each reading follows the
 * program's own argument syntax, on the parsed words:
 * - `tar --checkpoint-action=exec=CMD`, `--to-command`, `-I`/`--use-compress-program`,
 *   `--rsh-command`, `-F`/`--info-script`/`--new-volume-script`;
 * - `sed`: the `e` command and the `e` flag of `s///` (`./sed-script.ts`); bare `e` runs the
 *   pattern space, that is its input: read like a shell reading stdin;
 * - `awk` programs calling `system(…)` or piping to or from a command (`./awk-program.ts`);
 * - `make -f -` / a makefile from stdin or `<(…)`, `make --eval`: recipes run as shell commands;
 * - `npm exec -c`/`npm x -c`/`npx -c`; `git rebase --exec`/`-x`, `git submodule foreach`,
 *   `git bisect run`, `git filter-branch --*-filter`, `git difftool -x`;
 * - `rsync -e`/`--rsh`, `ssh -o ProxyCommand=`/`LocalCommand=`/`KnownHostsCommand=`,
 *   `man -P`/`--pager`, `sdiff`/`diff3 --diff-program`, `zip -TT`/`--unzip-command`,
 *   `socat` addresses `SYSTEM:`/`EXEC:`;
 * - editors, debuggers, pagers and schedulers (`editorCarried`): `vim -c`/`--cmd`/`+CMD` and the
 *   lines `ex`/`vim -e`/`ed` read, `gdb -ex`/`--eval-command` and the lines gdb reads, `less +CMD`
 *   (their shell escapes, `./editor-commands.ts`), `at`/`batch` (stdin is shell code), `crontab -`
 *   (the command part of each line). Stdin that is not a static here-string (a pipe) is code from
 *   another command's output: it asks, and a download piped in is `deny.download_execute`.
 */
import type { Branch, Invocation } from './wrappers'
import { awkCommands } from './awk-program'
import { crontabCommands, edCommand, exCommand, gdbCommand, lessCommand, type EditorCode } from './editor-commands'
import { sedCommands } from './sed-script'
import type { EvalWord } from './words'

type Step = Branch[] | null

/** A part of a word (`--to-command=CMD` → `CMD`), with the word's certainty and sources. */
const part = (word: EvalWord, value: string): EvalWord => ({ ...word, value })

/** The value of a long option as `--name=V` or `--name V` (any unambiguous prefix of at least `min` characters). */
function longValues(argv: EvalWord[], names: string[], min = 4): EvalWord[] {
  const found: EvalWord[] = []
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value
    if (v === '--') break
    if (!v.startsWith('--')) continue
    const eq = v.indexOf('=')
    const name = eq < 0 ? v.slice(2) : v.slice(2, eq)
    if (name.length < min || !names.some((n) => n.startsWith(name))) continue
    if (eq >= 0) found.push(part(argv[i]!, v.slice(eq + 1)))
    else if (i + 1 < argv.length) found.push(argv[++i]!)
  }
  return found
}

/** Values of a short option given alone (`-I CMD`) or attached (`-ICMD`), before `--`. */
function shortValues(argv: EvalWord[], letter: string): EvalWord[] {
  const found: EvalWord[] = []
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value
    if (v === '--') break
    if (v === `-${letter}`) {
      if (i + 1 < argv.length) found.push(argv[++i]!)
    } else if (v.startsWith(`-${letter}`) && v.length > 2) found.push(part(argv[i]!, v.slice(2)))
  }
  return found
}

/** The code each program carries: words of shell code, and whether its stdin is code. */
type Carried = { code: { words: EvalWord[]; by: string[] }[]; stdinScript?: boolean; concern?: string; stdinCode?: (text: string) => EditorCode }

function carriedBy(argv: EvalWord[], name: string, stdinText: string | undefined): Carried | undefined {
  const code: Carried['code'] = []
  const add = (by: string[], words: EvalWord[]) => {
    for (const w of words) if (w.value.trim() !== '') code.push({ words: [w], by })
  }
  switch (name) {
    case 'tar':
    case 'gtar': {
      for (const w of longValues(argv, ['checkpoint-action'], 12)) if (/^exec=/.test(w.value)) add([name, '--checkpoint-action'], [part(w, w.value.slice(5))])
      add([name, '--to-command'], longValues(argv, ['to-command'], 4))
      add([name, '--use-compress-program'], [...longValues(argv, ['use-compress-program'], 4), ...shortValues(argv, 'I')])
      add([name, '--rsh-command'], longValues(argv, ['rsh-command'], 4))
      add([name, '--info-script'], [...longValues(argv, ['info-script', 'new-volume-script'], 4), ...shortValues(argv, 'F')])
      return { code }
    }
    case 'sed':
    case 'gsed': {
      const read = sedCommands(argv)
      if (!read) return undefined
      add([name, 'e'], read.commands)
      return {
        code,
        stdinScript: read.runsInput,
        ...(read.runsInput ? { concern: `${name} runs the lines it reads as shell commands (the e command or the e flag of s///)` } : {})
      }
    }
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk': {
      const read = awkCommands(argv)
      if (!read) return undefined
      add([name, 'system'], read.commands)
      return { code, concern: read.opaque ? `${name} runs commands its program builds at run time (system() or a pipe)` : undefined }
    }
    case 'make':
    case 'gmake': {
      const files = [...longValues(argv, ['file', 'makefile'], 3), ...shortValues(argv, 'f')]
      const evals = [...longValues(argv, ['eval'], 3), ...shortValues(argv, 'E')]
      const fromStdin = files.some(
        (f) =>
          f.value === '-' || f.value === '/dev/stdin' || /^\/dev\/fd\/|^\/proc\/self\/fd\//.test(f.value) || f.source.subs.some((s) => s.text.startsWith('<('))
      )
      const texts = [...evals.map((w) => w.value), ...(fromStdin && stdinText !== undefined ? [stdinText] : [])]
      for (const text of texts)
        for (const line of text.split('\n'))
          if (line.startsWith('\t')) add([name, '-f', '-'], [{ value: line.slice(1), static: evals.every((e) => e.static), source: { subs: [], feeds: [] } }])
      if (fromStdin || evals.length > 0)
        return { code, concern: `${name} reads a makefile from ${fromStdin ? 'its input' : '--eval'}: its recipes run as shell commands` }
      return undefined
    }
    case 'npx':
      add(['npx', '-c'], [...shortValues(argv, 'c'), ...longValues(argv, ['call'], 4)])
      return code.length > 0 ? { code } : undefined
    case 'npm':
    case 'pnpm': {
      const sub = argv.findIndex((w, i) => i > 0 && !w.value.startsWith('-'))
      if (sub < 0 || !['exec', 'x', 'dlx'].includes(argv[sub]!.value)) return undefined
      const rest = argv.slice(sub)
      add([name, argv[sub]!.value, '-c'], [...shortValues(rest, 'c'), ...longValues(rest, ['call'], 4)])
      return code.length > 0 ? { code } : undefined
    }
    case 'git':
      return gitCarried(argv)
    case 'rsync':
      add(['rsync', '-e'], [...shortValues(argv, 'e'), ...longValues(argv, ['rsh'], 3)])
      return code.length > 0 ? { code } : undefined
    case 'ssh':
    case 'scp':
    case 'sftp': {
      for (const w of shortValues(argv, 'o')) {
        const m = /^\s*(proxycommand|localcommand|knownhostscommand)\s*[= ]\s*([\s\S]*)$/i.exec(w.value)
        if (m && m[2] !== undefined && !/^none$/i.test(m[2].trim())) add([name, '-o', m[1]!], [part(w, m[2])])
      }
      return code.length > 0 ? { code } : undefined
    }
    case 'man':
      add(['man', '-P'], [...shortValues(argv, 'P'), ...longValues(argv, ['pager'], 3), ...shortValues(argv, 'H'), ...longValues(argv, ['html'], 4)])
      return code.length > 0 ? { code } : undefined
    case 'sdiff':
    case 'diff':
    case 'diff3':
      add([name, '--diff-program'], longValues(argv, ['diff-program'], 3))
      return code.length > 0 ? { code } : undefined
    case 'zip':
      add(['zip', '-TT'], [...shortValues(argv, 'TT'), ...longValues(argv, ['unzip-command'], 3)])
      return code.length > 0 ? { code } : undefined
    case 'socat':
      for (const w of argv.slice(1)) {
        const m = /^(system|exec):([\s\S]*)$/i.exec(w.value)
        if (m) add(['socat', m[1]!.toUpperCase()], [part(w, m[2]!.replace(/,[a-z-]+(=[^,]*)?$/i, ''))])
      }
      return code.length > 0 ? { code } : undefined
    default:
      return editorCarried(argv, name, stdinText)
  }
}

const vims = new Set(['vi', 'vim', 'nvim', 'view', 'gvim', 'gview', 'rvim', 'rview', 'vimdiff', 'nvi', 'elvis', 'ex', 'exim', 'evim'])
const textWord = (value: string): EvalWord => ({ value, static: true, source: { subs: [], feeds: [] } })

/**
 * Editors, debuggers, pagers and schedulers that run commands given in an option or read from
 * stdin (`./editor-commands.ts`). Stdin that is a static here-string or here-document is read
 * line by line in the program's language; any other stdin (a pipe) is code from another
 * command's output (`stdinScript`): it asks, and a download piped in is download-and-execute.
 */
function editorCarried(argv: EvalWord[], name: string, stdinText: string | undefined): Carried | undefined {
  const code: Carried['code'] = []
  let opaque = false
  const take = (by: string[], word: EvalWord, read: EditorCode) => {
    for (const c of read.code) if (c.trim() !== '') code.push({ words: [part(word, c)], by })
    opaque ||= read.opaque
  }
  const flags = argv
    .slice(1)
    .filter((w) => /^-[a-zA-Z]+$/.test(w.value))
    .map((w) => w.value.slice(1))
    .join('')
  const info = argv.slice(1).some((w) => /^--?(?:version|help)$/.test(w.value))
  /** Stdin as lines of the program's own commands: read when static, else code from outside (read by the walk when a static `echo` pipes it). */
  let stdinCode: ((text: string) => EditorCode) | undefined
  const stdinLines = (read: (line: string) => EditorCode): boolean => {
    stdinCode = (text) =>
      text
        .split('\n')
        .map(read)
        .reduce((a, b) => ({ code: [...a.code, ...b.code], opaque: a.opaque || b.opaque }), { code: [], opaque: false })
    if (stdinText === undefined) return true
    for (const line of stdinText.split('\n')) take([name, '<<<'], textWord(line), read(line))
    return false
  }
  let stdinScript = false
  if (vims.has(name)) {
    for (const w of [...shortValues(argv, 'c'), ...longValues(argv, ['cmd'], 3)]) take([name, '-c'], w, exCommand(w.value))
    for (const w of argv.slice(1)) if (w.value.startsWith('+')) take([name, '+'], w, exCommand(w.value.slice(1)))
    if (!info && (name.startsWith('ex') || /[eE]/.test(flags))) stdinScript = stdinLines(exCommand)
  } else if (name === 'ed' || name === 'red') {
    if (!info) stdinScript = stdinLines(edCommand)
  } else if (name === 'gdb' || name === 'gdb-multiarch') {
    for (let i = 1; i < argv.length; i++) {
      const m = /^--?(?:ex|eval-command|iex|init-eval-command)(?:=([\s\S]*))?$/.exec(argv[i]!.value)
      if (!m) continue
      const word = m[1] === undefined ? argv[++i] : part(argv[i]!, m[1])
      if (word) take([name, '-ex'], word, gdbCommand(word.value))
    }
    if (!info && !argv.some((w) => /^--?batch$/.test(w.value))) stdinScript = stdinLines(gdbCommand)
  } else if (name === 'less') {
    for (const w of argv.slice(1)) {
      if (w.value === '--') break
      const m = /^\+\+?([\s\S]+)$/.exec(w.value)
      if (m) take([name, '+'], w, lessCommand(m[1]!))
    }
  } else if (name === 'at' || name === 'batch') {
    // `at TIME` and `batch` run their stdin with sh; `-l`/`-r`/`-d`/`-c` list, remove or show jobs, `-f FILE` reads a file.
    if (info || /[lrdcVf]/.test(flags)) return undefined
    return { code, stdinScript: true, stdinCode: (text) => ({ code: [text], opaque: false }) }
  } else if (name === 'crontab') {
    const operands = argv.slice(1).filter((w, i, all) => !w.value.startsWith('-') && all[i - 1]?.value !== '-u')
    if (info || /[lreiVT]/.test(flags) || operands.length > 0) return undefined
    stdinCode = (text) => ({ code: crontabCommands(text), opaque: false })
    if (stdinText === undefined) stdinScript = true
    else for (const line of crontabCommands(stdinText)) code.push({ words: [textWord(line)], by: ['crontab', '-'] })
  } else {
    return undefined
  }
  if (code.length === 0 && !stdinScript && !opaque) return undefined
  return {
    code,
    stdinScript,
    ...(stdinScript && stdinCode ? { stdinCode } : {}),
    ...(opaque ? { concern: `${name} is given commands that run code this reading does not follow (a script language, a pipe, system())` } : {})
  }
}

/** `git rebase --exec CMD`, `git submodule foreach CMD…`, `git bisect run CMD…`, filter-branch filters, `difftool -x`. */
function gitCarried(argv: EvalWord[]): Carried | undefined {
  const code: Carried['code'] = []
  let i = 1
  while (i < argv.length && argv[i]!.value.startsWith('-'))
    i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path'].includes(argv[i]!.value) ? 2 : 1
  const sub = argv[i]?.value ?? ''
  const rest = [argv[0]!, ...argv.slice(i + 1)]
  if (sub === 'rebase')
    for (const w of [...shortValues(rest, 'x'), ...longValues(rest, ['exec'], 3)]) code.push({ words: [w], by: ['git', 'rebase', '--exec'] })
  if (sub === 'difftool' || sub === 'mergetool')
    for (const w of [...shortValues(rest, 'x'), ...longValues(rest, ['extcmd'], 3)]) code.push({ words: [w], by: ['git', sub, '--extcmd'] })
  if (sub === 'filter-branch')
    for (const w of longValues(rest, ['env-filter', 'tree-filter', 'index-filter', 'parent-filter', 'msg-filter', 'commit-filter', 'tag-name-filter'], 5))
      code.push({ words: [w], by: ['git', 'filter-branch'] })
  const words = argv.slice(i + 1)
  const at = (name: string) => words.findIndex((w) => w.value === name)
  if (sub === 'submodule' && at('foreach') >= 0) {
    const cmd = words.slice(at('foreach') + 1).filter((w, k, all) => !(k === 0 && (w.value === '--recursive' || w.value === '-q')) || all.length === 1)
    const start = cmd.findIndex((w) => !w.value.startsWith('-'))
    if (start >= 0) code.push({ words: cmd.slice(start), by: ['git', 'submodule', 'foreach'] })
  }
  if (sub === 'bisect' && words[0]?.value === 'run' && words.length > 1) code.push({ words: words.slice(1), by: ['git', 'bisect', 'run'] })
  return code.length > 0 ? { code } : undefined
}

/**
 * The invocations of a program that carries code: the program itself (reading code from stdin
 * when it does) and one script per piece of code. Undefined when it carries none.
 */
export function peelCode(b: Branch, out: Invocation[], name: string, stdinText?: string, scriptsOnly = false): Step | undefined {
  const carried = carriedBy(b.argv, name, stdinText)
  if (!carried || (carried.code.length === 0 && !carried.stdinScript && !carried.concern)) return undefined
  if (!scriptsOnly)
    out.push({
      kind: 'run',
      ...b,
      stdinScript: carried.stdinScript ? 'shell' : null,
      scriptWords: [],
      ...(carried.concern ? { concern: carried.concern } : {}),
      ...(carried.stdinCode ? { stdinCode: carried.stdinCode } : {})
    })
  for (const { words, by } of carried.code) {
    out.push({ ...b, kind: 'script', words, runner: b.argv, wrappers: [...b.wrappers, { argv: by }] })
  }
  return []
}
