/**
 * Word evaluation: what a word node of the tree becomes once the shell has removed quotes and
 * escapes (`r''m`, `\rm`, `"rm"`, `$'\x72m'` all give `rm`). Expansions are read against the
 * plain assignments earlier in the line, in walk order, whatever branch or subshell they sit in (`a=r;
 * b=m; $a$b` gives `rm`, not static: a best reading, never certain); unknown ones
 * keep their source text (`$HOME`, `${HOME}`, `$(date)`). Unquoted expansions are split into
 * fields the way the shell would, so `rm${IFS}-rf${IFS}/` becomes the three words `rm`, `-rf`, `/`
 * (not static), and an unquoted expansion of a known empty variable disappears. `${IFS}` reads as
 * the assigned IFS, else a space. Unquoted braces are expanded first (`braces.ts`: `/{bin,usr}`
 * gives two words). Command and process substitutions are not evaluated here: they are returned
 * for the walk to queue (so nesting depth never becomes recursion depth), including those the
 * grammar leaves as text inside `${…}` (`${x#$(…)}`, `${x:-`…`}`), which are parsed again.
 * Values and words count against the budget (`chars`), so repeated expansion cannot fill memory.
 */
import type { Node, Tree } from 'web-tree-sitter'
import { analysisLimits, type AnalysisBudget } from './budget'
import { decodeAnsiC, unescapeDouble, unescapeHeredoc, unescapeUnquoted } from './escapes'
import { braceClose, braceOpen, expandBraces, markBraces, unmarkBraces } from './braces'

/** Where a sink's commands' output goes (a substitution's parent, a pipeline stage, a variable). */
export type Sink = { collected: number[] }

/** What one variable holds, as far as the line tells. */
export type VariableValue = {
  value: string
  static: boolean
  feeds: Sink[]
  /** The value holds `$(` or a backtick: evaluating it again (arithmetic, `@P`) runs code. */
  code?: boolean
}

/** One source word (it may give several fields): its substitutions and the commands feeding it. */
export type SourceWord = { subs: Node[]; feeds: Sink[] }

/** One field: a word as the program receives it. */
export type EvalWord = { value: string; static: boolean; source: SourceWord }

/** A part of a word's value; `marked` when it is line text whose brace syntax is marked (`braces.ts`). */
type Piece = { text: string; split: boolean; keep: boolean; marked?: boolean }
type State = { static: boolean; pieces: Piece[]; source: SourceWord; quoted: boolean; braces: boolean }

const substitutionTypes = new Set(['command_substitution', 'process_substitution'])
/** Text with an unescaped `` ` `` or `$(`: a substitution the grammar left as text. */
const hiddenSubstitution = /(^|[^\\])(\\\\)*(`|\$\()/
const defaultIfs = ' \t\n'

/** Evaluates word nodes against the line's known variables, within the budget. */
export class WordEvaluator {
  constructor(
    private readonly variables: Map<string, VariableValue>,
    private readonly budget: AnalysisBudget,
    private readonly parse: (text: string) => Tree | null,
    /** Called with each expansion the evaluator does not evaluate (arithmetic, `${!x}`, `${x@P}`…). */
    private readonly onOpaque: (node: Node) => void = () => undefined
  ) {}

  /** The fields a word gives in an argument position (after field splitting). */
  fields(node: Node): EvalWord[] {
    const state = this.evaluate(node)
    const ifs = this.variables.get('IFS')?.value ?? defaultIfs
    let variants: Piece[][] | null = [state.pieces]
    if (state.braces) {
      // Marks that did not come from brace syntax (a value holding U+E000…) make the reading unsure.
      const foreign = state.pieces.some((p) => !p.marked && /[\uE000-\uE002]/.test(p.text))
      variants = foreign ? null : expandBraces(state.pieces)
      if (!variants) {
        state.static = false
        variants = [state.pieces.map((p) => ({ ...p, text: unmarkBraces(p.text) }))]
      }
    }
    const fields = variants.flatMap((pieces) => splitFields(pieces, ifs))
    this.budget.word(fields.length)
    this.budget.chars(fields.reduce((n, f) => n + f.length, 0))
    return fields.map((value) => ({ value, static: state.static, source: state.source }))
  }

  /** The single word a node gives where the shell does not split (assignments, redirects). */
  single(node: Node): EvalWord {
    const state = this.evaluate(node)
    this.budget.word()
    const value = unmarkBraces(state.pieces.map((p) => p.text).join(''))
    this.budget.chars(value.length)
    return { value, static: state.static, source: state.source }
  }

  private evaluate(node: Node): State {
    const state: State = { static: true, pieces: [], source: { subs: [], feeds: [] }, quoted: false, braces: false }
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
      case 'word': {
        if (/(^|[^\\])[*?[]/.test(text) || text.startsWith('~')) state.static = false
        if (state.quoted) {
          state.pieces.push({ text: unescapeUnquoted(text), split: false, keep: true })
          return
        }
        const marked = markBraces(text)
        state.braces ||= marked !== text && /[\uE000-\uE002]/.test(marked)
        state.pieces.push({ text: marked, split: false, keep: true, marked: true })
        return
      }
      case 'brace_expression':
        if (state.quoted) this.opaque(node, text, state)
        else {
          state.braces = true
          state.pieces.push({ text: `${braceOpen}${text.slice(1, -1)}${braceClose}`, split: false, keep: true, marked: true })
        }
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
    if (!this.budget.chars(known.value.length)) return
    state.source.feeds.push(...known.feeds)
    state.pieces.push({ text: known.value, split: !state.quoted, keep: state.quoted })
  }

  /** An expansion the analysis does not evaluate: source text, not static, substitutions queued. */
  private opaque(node: Node, text: string, state: State): void {
    state.static = false
    state.pieces.push({ text, split: false, keep: true })
    this.onOpaque(node)
    state.source.subs.push(...this.substitutionsIn(node))
  }

  /**
   * Every `$(…)`, backticks or `<(…)` inside a node, outermost first (their bodies are walked
   * later). The grammar leaves some as plain text: a pattern or a word inside `${…}`
   * (`${x#$(…)}`, `${x:-`…`}`). Such text is parsed again as a word, the way bash reads it, and
   * searched the same way (each text is shorter than the one it came from, so this ends).
   */
  substitutionsIn(node: Node): Node[] {
    const found: Node[] = []
    const stack: Node[] = [node]
    while (stack.length > 0) {
      const next = stack.pop() as Node
      if (!this.budget.node()) break
      if (substitutionTypes.has(next.type)) {
        found.push(next)
        continue
      }
      const children = next.namedChildren
      // `${x/`a b/c`/y}`: the grammar ends the pattern at the `/` inside the backticks, so the
      // whole inside of the `${…}` is parsed again (`_` keeps a leading `#` from being a comment).
      const hidden =
        next.type === 'expansion'
          ? children.some((c) => c !== null && c.namedChildCount === 0 && hiddenSubstitution.test(c.text))
          : children.length === 0 && next !== node && hiddenSubstitution.test(next.text)
      if (hidden) {
        const text = next.type === 'expansion' ? `_${next.text.slice(2, -1)}` : next.text
        const tree = this.parse(`: ${text}`)
        if (!tree) {
          this.budget.stop('a word did not parse within the time budget')
          break
        }
        stack.push(tree.rootNode)
        continue
      }
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i]
        if (child) stack.push(child)
      }
    }
    return found
  }
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

/** A static word with no source (keywords, synthetic values). */
export function literal(value: string): EvalWord {
  return { value, static: true, source: { subs: [], feeds: [] } }
}

/** At most `max` characters, for reasons and `text`. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

export { decodeAnsiC, unescapeDouble, unescapeUnquoted } from './escapes'
