/**
 * A reading of a sed script for the code it runs (GNU sed): the `e COMMAND` command runs COMMAND,
 * a bare `e` runs the pattern space (the input line), and the `e` flag of `s///` runs the pattern
 * space after the substitution (best reading: the replacement). The script is read the way sed
 * reads it — addresses, then one command with its own argument syntax (`a`/`i`/`c` text, file
 * names, labels, `s` and `y` with their delimiters) — so an `e` inside a regex, a text or a file
 * name is not taken for the command. `--sandbox` makes sed refuse `e`: nothing runs.
 */
import type { EvalWord } from './words'

/** What a sed invocation runs: commands (`e CMD`, `s/…/CMD/e`) and whether it runs its input. */
export type SedCode = { commands: EvalWord[]; runsInput: boolean }

/** The code a sed command line carries, or undefined when it carries none. */
export function sedCommands(argv: EvalWord[]): SedCode | undefined {
  const scripts: EvalWord[] = []
  let fileScript = false
  let operand: EvalWord | undefined
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!
    const v = word.value
    if (v === '--') {
      operand ??= argv[i + 1]
      break
    }
    if (v === '--sandbox') return undefined
    if (v.startsWith('--expression')) {
      const s = v.includes('=') ? { ...word, value: v.slice(v.indexOf('=') + 1) } : argv[++i]
      if (s) scripts.push(s)
      continue
    }
    if (v.startsWith('--file')) {
      fileScript = true
      if (!v.includes('=')) i++
      continue
    }
    if (v.startsWith('--')) {
      if (v === '--line-length' || v === '-l') i++
      continue
    }
    if (v.startsWith('-') && v.length > 1) {
      for (let k = 1; k < v.length; k++) {
        const letter = v[k]
        if (letter === 'e' || letter === 'f' || letter === 'l') {
          const value = k + 1 < v.length ? { ...word, value: v.slice(k + 1) } : argv[++i]
          if (letter === 'e' && value) scripts.push(value)
          if (letter === 'f') fileScript = true
          break
        }
        if (letter === 'i') break
      }
      continue
    }
    operand ??= word
  }
  if (scripts.length === 0 && !fileScript && operand) scripts.push(operand)
  const found: SedCode = { commands: [], runsInput: false }
  for (const script of scripts) {
    const read = scan(script.value)
    found.runsInput ||= read.runsInput
    for (const command of read.commands) found.commands.push({ ...script, value: command })
  }
  return found.commands.length > 0 || found.runsInput ? found : undefined
}

/** Scans one script: the commands `e` runs and whether the pattern space is run. */
function scan(s: string): { commands: string[]; runsInput: boolean } {
  const commands: string[] = []
  let runsInput = false
  let i = 0
  const n = s.length
  const toEol = (): string => {
    const start = i
    while (i < n && s[i] !== '\n') i += s[i] === '\\' ? 2 : 1
    return s.slice(start, Math.min(i, n))
  }
  const delimited = (delim: string): string => {
    let out = ''
    while (i < n && s[i] !== delim) {
      if (s[i] === '\\' && i + 1 < n) {
        out += s[i + 1] === delim ? delim : s[i + 1] === 'n' ? '\n' : `\\${s[i + 1]}`
        i += 2
      } else out += s[i++]
    }
    i++
    return out
  }
  const address = (): void => {
    if (/[0-9]/.test(s[i] ?? '')) {
      while (/[0-9~+]/.test(s[i] ?? '')) i++
    } else if (s[i] === '$') i++
    else if (s[i] === '/') {
      i++
      delimited('/')
      while (/[IM]/.test(s[i] ?? '')) i++
    } else if (s[i] === '\\' && i + 1 < n) {
      const d = s[i + 1]!
      i += 2
      delimited(d)
      while (/[IM]/.test(s[i] ?? '')) i++
    }
  }
  while (i < n) {
    while (i < n && /[\s;]/.test(s[i]!)) i++
    if (i >= n) break
    address()
    if (s[i] === ',') {
      i++
      while (s[i] === ' ') i++
      address()
    }
    while (i < n && /[\s!]/.test(s[i]!) && s[i] !== '\n') i++
    const c = s[i++]
    switch (c) {
      case '#':
        toEol()
        break
      case ':':
      case 'b':
      case 't':
      case 'T':
        while (i < n && s[i] !== '\n' && s[i] !== ';') i++
        break
      case 'a':
      case 'i':
      case 'c':
      case 'r':
      case 'R':
      case 'w':
      case 'W':
        toEol()
        break
      case 'e': {
        const command = toEol().trim()
        if (command === '') runsInput = true
        else commands.push(command)
        break
      }
      case 's': {
        const d = s[i++] ?? '/'
        delimited(d)
        const replacement = delimited(d)
        let flags = ''
        while (i < n && /[a-zA-Z0-9]/.test(s[i]!)) {
          if (s[i] === 'w') {
            toEol()
            break
          }
          flags += s[i++]
        }
        if (flags.includes('e')) {
          runsInput = true
          if (replacement.trim() !== '') commands.push(replacement)
        }
        break
      }
      case 'y': {
        const d = s[i++] ?? '/'
        delimited(d)
        delimited(d)
        break
      }
      default:
        break
    }
  }
  return { commands, runsInput }
}
