/**
 * A reading of an awk program for the commands it runs: `system(EXPR)`, `print … | CMD`,
 * `CMD | getline`, gawk's `|&` coprocess. The program is tokenized the way awk reads it (strings,
 * regex literals where an operand may start, comments), so `/a|b/` or `"x|y"` is not a pipe. A
 * command given as one string literal is returned for analysis; one built at run time (a variable,
 * a concatenation), or a pipe into a shell or interpreter (what is printed is its code), is `opaque`.
 */
import type { EvalWord } from './words'

/** The commands an awk program runs, and whether some are only known at run time. */
export type AwkCode = { commands: EvalWord[]; opaque: boolean }

type Token = { t: 'str' | 'id' | 'pipe' | 'punct'; v: string }

const withValue = new Set(['-F', '-v', '-f', '-i', '-l', '-E', '--field-separator', '--assign', '--file', '--include', '--load', '--exec'])
const keywords = new Set(['print', 'printf', 'return', 'in', 'if', 'while', 'for', 'do', 'else', 'getline'])
const codeReaders = /^(?:sh|bash|dash|zsh|ksh|ash|mksh|busybox|python[\d.]*|perl|ruby|node|php|lua)$/

/** The commands an awk command line runs, or undefined when its program runs none. */
export function awkCommands(argv: EvalWord[]): AwkCode | undefined {
  let program: EvalWord | undefined
  let fromFile = false
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]!.value
    if (v === '--') {
      program = argv[i + 1]
      break
    }
    if (v === '-e' || v === '--source') {
      program = argv[i + 1]
      break
    }
    if (v.startsWith('--source=')) {
      program = { ...argv[i]!, value: v.slice(9) }
      break
    }
    if (v === '-f' || v === '--file' || v.startsWith('--file=') || (v.startsWith('-f') && v.length > 2)) fromFile = true
    if (withValue.has(v)) {
      i++
      continue
    }
    if (v.startsWith('-') && v.length > 1) continue
    // With -f the program is a file (a script file is the sandbox's to contain); operands are data.
    if (!fromFile) program = argv[i]
    break
  }
  if (!program) return undefined
  const tokens = tokenize(program.value)
  const found: AwkCode = { commands: [], opaque: false }
  const literal = (k: number): string | undefined => {
    const token = tokens[k]
    const next = tokens[k + 1]
    return token?.t === 'str' && (next === undefined || next.t !== 'str') ? token.v : undefined
  }
  const command = (k: number) => {
    const text = literal(k)
    if (text === undefined) {
      found.opaque = true
      return
    }
    found.commands.push({ ...program, value: text })
    if (codeReaders.test(text.trim().split(/\s+/)[0]?.replace(/^.*\//, '') ?? '')) found.opaque = true
  }
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k]!
    if (token.t === 'id' && token.v === 'system' && tokens[k + 1]?.v === '(') {
      const close = tokens[k + 3]?.v === ')'
      if (close) command(k + 2)
      else found.opaque = true
    }
    if (token.t === 'pipe') {
      if (tokens[k + 1]?.v === 'getline') command(k - 1)
      else command(k + 1)
    }
  }
  return found.commands.length > 0 || found.opaque ? found : undefined
}

function tokenize(p: string): Token[] {
  const tokens: Token[] = []
  let operand = false
  let i = 0
  while (i < p.length) {
    const c = p[i]!
    if (c === '"') {
      let v = ''
      i++
      while (i < p.length && p[i] !== '"') {
        if (p[i] === '\\' && i + 1 < p.length) {
          const e = p[i + 1]!
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e
          i += 2
        } else v += p[i++]
      }
      i++
      tokens.push({ t: 'str', v })
      operand = true
    } else if (c === '/' && !operand) {
      i++
      let inClass = false
      while (i < p.length && (p[i] !== '/' || inClass)) {
        if (p[i] === '\\') i++
        else if (p[i] === '[') inClass = true
        else if (p[i] === ']') inClass = false
        i++
      }
      i++
      tokens.push({ t: 'punct', v: 'regex' })
      operand = true
    } else if (c === '#') {
      while (i < p.length && p[i] !== '\n') i++
    } else if (/[A-Za-z_]/.test(c)) {
      const start = i
      while (i < p.length && /[A-Za-z0-9_]/.test(p[i]!)) i++
      const v = p.slice(start, i)
      tokens.push({ t: 'id', v })
      operand = !keywords.has(v)
    } else if (c === '|') {
      if (p[i + 1] === '|') {
        tokens.push({ t: 'punct', v: '||' })
        i += 2
        operand = false
      } else {
        tokens.push({ t: 'pipe', v: '|' })
        i += p[i + 1] === '&' ? 2 : 1
        operand = false
      }
    } else if (/\s/.test(c)) {
      i++
    } else {
      tokens.push({ t: 'punct', v: c })
      operand = /[)\]$0-9.]/.test(c)
      i++
    }
  }
  return tokens
}
