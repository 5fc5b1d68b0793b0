/**
 * Word evaluation: what a word node of the tree becomes once the shell has removed quotes and
 * escapes (`r''m`, `\rm`, `"rm"`, `$'\x72m'` all give `rm`). Expansions are read against the
 * plain assignments earlier in the line, in walk order, whatever branch or subshell they sit in (`a=r;
 * b=m; $a$b` gives `rm`, not static: a best reading, never certain); unknown ones
 * keep their source text (`$HOME`, `${HOME}`, `$(date)`). Unquoted expansions are split into
 * fields the way the shell would, so `rm${IFS}-rf${IFS}/` becomes the three words `rm`, `-rf`, `/`
 * (not static), and an unquoted expansion of a known empty variable disappears. `${IFS}` reads as
 * the assigned IFS, else a space. Command and process substitutions are not evaluated here: they
 * are returned for the walk to queue (so nesting depth never becomes recursion depth).
 */
import type { Node } from 'web-tree-sitter'
import type { AnalysisBudget } from './budget'
import { analysisLimits } from './budget'

/** Where a sink's commands' output goes (a substitution's parent, a pipeline stage, a variable). */
export type Sink = { collected: number[] }

/** What one variable holds, as far as the line tells. */
export type VariableValue = { value: string; static: boolean; feeds: Sink[] }

/** One source word (it may give several fields): its substitutions and the commands feeding it. */
export type SourceWord = { subs: Node[]; feeds: Sink[] }

/** One field: a word as the program receives it. */
export type EvalWord = { value: string; static: boolean; source: SourceWord }

type Piece = { text: string; split: boolean; keep: boolean }
type State = { static: boolean; pieces: Piece[]; source: SourceWord; quoted: boolean }

const substitutionTypes = new Set(['command_substitution', 'process_substitution'])
const defaultIfs = ' \t\n'

/** Evaluates word nodes against the line's known variables, within the budget. */
export class WordEvaluator {
  constructor(
    private readonly variables: Map<string, VariableValue>,
    private readonly budget: AnalysisBudget
  ) {}

  /** The fields a word gives in an argument position (after field splitting). */
  fields(node: Node): EvalWord[] {
    const state = this.evaluate(node)
    const fields = splitFields(state.pieces, this.variables.get('IFS')?.value ?? defaultIfs)
    this.budget.word(fields.length)
    return fields.map((value) => ({ value, static: state.static, source: state.source }))
  }

  /** The single word a node gives where the shell does not split (assignments, redirects). */
  single(node: Node): EvalWord {
    const state = this.evaluate(node)
    this.budget.word()
    return { value: state.pieces.map((p) => p.text).join(''), static: state.static, source: state.source }
  }

  private evaluate(node: Node): State {
    const state: State = { static: true, pieces: [], source: { subs: [], feeds: [] }, quoted: false }
    this.collect(node, state, 0)
    return state
  }

  private collect(node: Node, state: State, depth: number): void {
    if (!this.budget.node()) return
    if (depth > analysisLimits.maxWordDepth) {
      this.budget.stop(`a word nested deeper than ${analysisLimits.maxWordDepth}`)
      return
    }
    const type = node.type
    const text = node.text
    switch (type) {
      case 'word':
        if (/(^|[^\\])[*?[]/.test(text) || text.startsWith('~') || isBrace(text)) state.static = false
        state.pieces.push({ text: unescapeUnquoted(text), split: false, keep: true })
        return
      case 'number':
      case 'file_descriptor':
      case 'variable_name':
        state.pieces.push({ text, split: false, keep: true })
        return
      case 'raw_string':
        state.pieces.push({ text: text.slice(1, -1), split: false, keep: true })
        return
      case 'ansi_c_string':
        state.pieces.push({ text: decodeAnsiC(text.slice(2, -1)), split: false, keep: true })
        return
      case 'string':
      case 'translated_string':
      case 'heredoc_body': {
        const outer = state.quoted
        state.quoted = true
        state.pieces.push({ text: '', split: false, keep: true })
        const children = node.children
        if (type === 'heredoc_body' && children.length === 0) state.pieces.push({ text, split: false, keep: true })
        for (const child of children) {
          if (!child) continue
          if (child.type === 'string_content') state.pieces.push({ text: unescapeDouble(child.text), split: false, keep: true })
          else if (child.type === 'heredoc_content') state.pieces.push({ text: unescapeHeredoc(child.text), split: false, keep: true })
          else if (child.isNamed) this.collect(child, state, depth + 1)
        }
        state.quoted = outer
        return
      }
      case 'concatenation':
        if (!state.quoted && isBrace(text)) state.static = false
        for (const child of node.children) if (child) this.collect(child, state, depth + 1)
        return
      case 'simple_expansion':
        this.expand(text.slice(1), text, state)
        return
      case 'expansion': {
        const inner = text.slice(2, -1)
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(inner)) this.expand(inner, text, state)
        else this.opaque(node, text, state)
        return
      }
      case 'command_substitution':
      case 'process_substitution':
        state.static = false
        state.source.subs.push(node)
        state.pieces.push({ text, split: false, keep: true })
        return
      default:
        this.opaque(node, text, state)
    }
  }

  /** A variable reference: its known value (split when unquoted), else its source text. */
  private expand(name: string, sourceText: string, state: State): void {
    const known = this.variables.get(name)
    if (name === 'IFS') {
      state.static = false
      state.pieces.push({ text: known?.value ?? ' ', split: !state.quoted, keep: state.quoted })
      return
    }
    if (!known) {
      state.static = false
      state.pieces.push({ text: sourceText, split: false, keep: true })
      return
    }
    // A propagated value is a best reading (the line could be run differently), never certain.
    state.static = false
    state.source.feeds.push(...known.feeds)
    state.pieces.push({ text: known.value, split: !state.quoted, keep: state.quoted })
  }

  /** An expansion the analysis does not evaluate: source text, not static, substitutions queued. */
  private opaque(node: Node, text: string, state: State): void {
    state.static = false
    state.pieces.push({ text, split: false, keep: true })
    const stack: Node[] = [...node.namedChildren.filter((n): n is Node => n !== null)]
    while (stack.length > 0) {
      const next = stack.pop() as Node
      if (!this.budget.node()) return
      if (substitutionTypes.has(next.type)) state.source.subs.push(next)
      else for (const child of next.namedChildren) if (child) stack.push(child)
    }
  }
}

function isBrace(text: string): boolean {
  return /\{[^{}\s]*(,|\.\.)[^{}\s]*\}/.test(text)
}

/** Splits pieces into fields: only text from unquoted expansions splits, on the IFS characters. */
function splitFields(pieces: Piece[], ifs: string): string[] {
  const fields: string[] = []
  let current = ''
  let has = false
  for (const piece of pieces) {
    if (!piece.split) {
      current += piece.text
      has = has || piece.keep || piece.text !== ''
      continue
    }
    for (const ch of piece.text) {
      if (ifs.includes(ch)) {
        if (has) fields.push(current)
        current = ''
        has = false
      } else {
        current += ch
        has = true
      }
    }
  }
  if (has) fields.push(current)
  return fields
}

/** Unquoted text: a backslash quotes the next character; backslash-newline disappears. */
export function unescapeUnquoted(text: string): string {
  return text.replace(/\\(\n|[\s\S])/g, (_, ch: string) => (ch === '\n' ? '' : ch))
}

/** Inside double quotes a backslash only quotes `$`, `` ` ``, `"`, `\` and newline. */
export function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, ch: string) => (ch === '\n' ? '' : ch))
}

function unescapeHeredoc(text: string): string {
  return text.replace(/\\([$`\\\n])/g, (_, ch: string) => (ch === '\n' ? '' : ch))
}

const simpleEscapes: Record<string, string> = {
  a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  '\\': '\\', "'": "'", '"': '"', '?': '?'
}

/** Decodes the body of `$'…'`: `\xHH`, `\NNN` (octal), `\uHHHH`, `\UHHHHHHHH`, `\cX`, `\n`… */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c[\s\S]|[\s\S])/g,
    (all, esc: string) => {
      const head = esc[0] ?? ''
      if (head === 'x') return String.fromCharCode(parseInt(esc.slice(1), 16))
      if (head === 'u' || head === 'U') {
        const code = parseInt(esc.slice(1), 16)
        return code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ''
      }
      if (/[0-7]/.test(head)) return String.fromCharCode(parseInt(esc, 8) & 0xff)
      if (head === 'c' && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 0x1f)
      return simpleEscapes[esc] ?? all
    }
  )
}

/** A static word with no source (keywords, synthetic values). */
export function literal(value: string): EvalWord {
  return { value, static: true, source: { subs: [], feeds: [] } }
}

/** At most `max` characters, for reasons and `text`. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
