/**
 * Assignments and declarations: `a=r` (remembered for later words, its substitutions walked),
 * `a[$(…)]=1` (the subscript's substitutions run too), `declare/export/local/readonly/typeset`
 * (recorded as written, each assignment remembered) and `unset` (forgets the variable). A value
 * built from other values (or appended) longer than `analysisLimits.maxVariableChars` is not
 * remembered and is `command.too_complex`, so `x=$x$x` repeated cannot grow without bound.
 */
import type { Node } from 'web-tree-sitter'
import { analysisLimits } from './budget'
import { emitInvocations } from './emit'
import { readRedirects } from './redirects'
import { assignmentCode, codeLike, evaluatedNode, quotedDeclaration } from './runtime-code'
import type { LineWalker } from './walk'
import type { WalkContext } from './walk-context'
import { literal, type EvalWord, type Sink } from './words'

const declarers = new Set(['declare', 'typeset', 'local', 'export', 'readonly'])

/** A declaration or `unset` command: recorded as written; its assignments remembered. */
export function declaration(w: LineWalker, node: Node, ctx: WalkContext): void {
  const argv: EvalWord[] = []
  const quoted: EvalWord[] = []
  for (const child of node.children) {
    if (!child) continue
    if (child.type === 'variable_assignment') {
      const { name, value } = assign(w, child, ctx)
      // Its substitutions are already queued by `assign`.
      argv.push({ value: `${name}=${value.value}`, static: value.static, source: { subs: [], feeds: [] } })
    } else if (!child.isNamed) argv.push(literal(child.text))
    else {
      if (node.type === 'unset_command') w.variables.delete(child.text)
      const words = w.words.fields(child)
      argv.push(...words)
      if (child.type !== 'word') quoted.push(...words)
    }
  }
  const command = argv[0]?.value ?? ''
  if (declarers.has(command)) for (const word of quoted) quotedDeclaration(w, word, ctx, command)
  emitInvocations(w, { node, ctx, argv, assignments: [], info: readRedirects([], w.words), noPeel: true })
}

/** The name and value of an assignment node (the value not split; substitutions not queued). */
export function assignmentValue(w: LineWalker, node: Node): { name: string; value: EvalWord } {
  const named = node.namedChildren.filter((c): c is Node => c !== null)
  const target = named[0]
  const name = target?.text ?? ''
  const valueNode = named.length > 1 ? named[named.length - 1] : undefined
  const value = valueNode ? w.words.single(valueNode) : literal('')
  if (target?.type === 'subscript') {
    // `a[$(…)]=1`: the subscript's substitutions run too, and it is evaluated as arithmetic.
    value.source.subs.unshift(...w.words.substitutionsIn(target))
    evaluatedNode(w, target)
  }
  return { name, value }
}

/** A standalone assignment (`a=r`): remembered for later words; its substitutions are walked. */
export function assign(w: LineWalker, node: Node, ctx: WalkContext): { name: string; value: EvalWord } {
  const { name, value } = assignmentValue(w, node)
  const sinks: Sink[] = value.source.subs.length > 0 ? [{ collected: [] }] : []
  for (const sub of value.source.subs) w.substitution(sub, ctx, undefined, ctx.stdin, sinks)
  assignmentCode(w, name, value, ctx)
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    const append = node.children.some((c) => c?.type === '+=')
    const before = append ? w.variables.get(name) : undefined
    const joined = (before?.value ?? '') + value.value
    // A value built from other values can double at each step (`x=$x$x`): past the limit the
    // analysis stops (a literal value is bounded by the line's own size and is kept).
    if (joined.length > analysisLimits.maxVariableChars && (append || !value.static)) {
      w.variables.delete(name)
      w.concern('command.too_complex', `the value of ${name} grew past ${analysisLimits.maxVariableChars} characters`)
    } else {
      w.variables.set(name, {
        value: joined,
        static: (before?.static ?? true) && value.static,
        feeds: [...(before?.feeds ?? []), ...value.source.feeds, ...sinks],
        code: codeLike(joined, w.variables)
      })
    }
  }
  return { name, value }
}
