/**
 * The walk from a parse tree to the simple commands that would run. It is a loop over an explicit
 * task stack, never recursion over the tree, so `$($($(…)))` 500 deep costs stack entries, not
 * call frames. Each task carries its context: the function it is in, whether it runs concurrently,
 * the wrappers it runs under (`sh -c`, `eval`), which commands feed its stdin (earlier pipeline
 * stages, `< <(…)`), where its own commands' output goes (a substitution's parent), and the
 * redirections of an enclosing compound statement. Scripts found inside the line (`sh -c STRING`,
 * `eval`, a here-doc fed to a shell) are parsed and walked the same way, to a bounded depth.
 */
import type { Node, Tree } from 'web-tree-sitter'
import type { AnalysisConcern, CommandFeed, CommandRedirect, CommandWrapper, SimpleCommand } from '../command-analysis'
import { analysisLimits, type AnalysisBudget } from './budget'
import { emitInvocations } from './emit'
import { readRedirects } from './redirects'
import { clip, literal, WordEvaluator, type EvalWord, type Sink, type VariableValue } from './words'

/** Parses a nested script within the line's budget; null when the budget ran out. */
export type ParseText = (text: string) => Tree | null

/** What the commands of one part of the tree inherit. */
export type WalkContext = {
  fn?: string
  concurrent: boolean
  wrappers: CommandWrapper[]
  stdin: Sink[]
  sinks: Sink[]
  target?: { cmd: SimpleCommand; how: CommandFeed['how'] }
  redirects: CommandRedirect[]
  /** Inside code only known at run time (its best reading): no word is static. */
  dynamic: boolean
  depth: number
  /** How many `$(…)`, backticks or `<(…)` enclose this part (a deterministic bound, unlike time). */
  nesting?: number
}

type Task = { node: Node; ctx: WalkContext; extra?: Node[] } | { text: string; ctx: WalkContext }

const statementTypes = new Set(['command', 'pipeline', 'list', 'redirected_statement', 'subshell', 'compound_statement', 'if_statement', 'while_statement', 'for_statement', 'c_style_for_statement', 'case_statement', 'function_definition', 'negated_command', 'declaration_command', 'unset_command', 'variable_assignment', 'test_command'])

/** Walks one line; `commands` and `concerns` fill as it goes. */
export class LineWalker {
  readonly commands: SimpleCommand[] = []
  readonly concerns: AnalysisConcern[] = []
  readonly variables = new Map<string, VariableValue>()
  readonly words: WordEvaluator
  private readonly tasks: Task[] = []

  constructor(
    private readonly parse: ParseText,
    readonly budget: AnalysisBudget
  ) {
    this.words = new WordEvaluator(this.variables, budget)
  }

  /** Walks a parsed line to the end or until the budget runs out. */
  run(root: Node): void {
    this.push({ node: root, ctx: { concurrent: false, wrappers: [], stdin: [], sinks: [], redirects: [], dynamic: false, depth: 0 } })
    while (this.tasks.length > 0 && !this.budget.exhausted) {
      const task = this.tasks.pop() as Task
      if ('text' in task) this.script(task.text, task.ctx)
      else if (this.budget.node()) this.visit(task)
    }
    if (this.budget.exhausted) this.concern('command.too_complex', `the analysis stopped: ${this.budget.exhausted}`)
  }

  /** Adds a concern once (at most ten per rule: one is enough to ask, more only repeat it). */
  concern(rule: AnalysisConcern['rule'], reason: string): void {
    const same = this.concerns.filter((c) => c.rule === rule)
    if (same.length < 10 && !same.some((c) => c.reason === reason)) this.concerns.push({ rule, reason })
  }

  /** Queues tasks to run in the given order (before anything queued earlier). */
  push(...tasks: Task[]): void {
    for (let i = tasks.length - 1; i >= 0; i--) this.tasks.push(tasks[i] as Task)
  }

  /** Records that `from`'s output reaches `cmd`. */
  feed(cmd: SimpleCommand, from: number, how: CommandFeed['how']): void {
    if (cmd.fedBy.some((f) => f.from === from && f.how === how) || !this.budget.feed()) return
    cmd.fedBy.push({ from, how })
  }

  /** Queues the body of a `$(…)`, backticks or `<(…)`/`>(…)`. */
  substitution(node: Node, ctx: WalkContext, target?: WalkContext['target'], stdin: Sink[] = ctx.stdin, sinks: Sink[] = []): void {
    const nesting = (ctx.nesting ?? 0) + 1
    if (nesting > analysisLimits.maxSubstitutionDepth) {
      this.budget.stop(`substitutions nested deeper than ${analysisLimits.maxSubstitutionDepth}`)
      return
    }
    const body = node.namedChildren.filter((c): c is Node => c !== null)
    const inner: WalkContext = { ...ctx, target, stdin, sinks, redirects: [], nesting }
    this.push(...body.map((child) => ({ node: child, ctx: inner })))
  }

  /** Queues shell code found inside the line (`sh -c`, `eval`, a here-doc fed to a shell). */
  queueScript(text: string, ctx: WalkContext): void {
    this.push({ text, ctx })
  }

  private script(text: string, ctx: WalkContext): void {
    if (ctx.depth >= analysisLimits.maxScriptDepth) {
      this.budget.stop(`scripts nested deeper than ${analysisLimits.maxScriptDepth}`)
      return
    }
    const tree = this.parse(text)
    if (!tree) {
      this.budget.stop('a nested script did not parse within the time budget')
      return
    }
    if (tree.rootNode.hasError) this.concern('command.parse_error', `a nested script has a syntax error: ${clip(text, 80)}`)
    this.push({ node: tree.rootNode, ctx: { ...ctx, depth: ctx.depth + 1 } })
  }

  private visit(task: Extract<Task, { node: Node }>): void {
    const { node, ctx } = task
    switch (node.type) {
      case 'command':
        return this.command(node, ctx, task.extra ?? [])
      case 'declaration_command':
      case 'unset_command':
        return this.declaration(node, ctx)
      case 'variable_assignment':
        this.assign(node, ctx)
        return
      case 'pipeline':
        return this.pipeline(flattenPipeline(node).map((n) => ({ node: n })), ctx)
      case 'redirected_statement':
        return this.redirected(node, ctx)
      case 'function_definition': {
        const body = node.childForFieldName('body')
        if (body) this.push({ node: body, ctx: { ...ctx, fn: node.childForFieldName('name')?.text ?? '' } })
        return
      }
      case 'command_substitution':
      case 'process_substitution':
        return this.substitution(node, ctx)
      case 'for_statement':
      case 'c_style_for_statement': {
        const variable = node.childForFieldName('variable')?.text
        if (variable) this.variables.delete(variable)
        break
      }
    }
    const children = node.children
    const next: Task[] = []
    for (let i = 0; i < children.length; i++) {
      const child = children[i]
      if (!child?.isNamed) continue
      const background = children[i + 1]?.type === '&'
      next.push({ node: child, ctx: background ? { ...ctx, concurrent: true } : ctx })
    }
    this.push(...next)
  }

  private command(node: Node, ctx: WalkContext, extra: Node[]): void {
    const assignments: { name: string; value: EvalWord }[] = []
    const argv: EvalWord[] = []
    const redirectNodes = [...extra]
    for (const child of node.namedChildren) {
      if (!child) continue
      if (child.type === 'variable_assignment') assignments.push(this.assignmentValue(child))
      else if (child.type === 'command_name') argv.push(...this.wordsOf(child.firstNamedChild ?? child))
      else if (child.type.endsWith('_redirect')) redirectNodes.push(child)
      else argv.push(...this.wordsOf(child))
    }
    const info = readRedirects(redirectNodes, this.words)
    for (const arg of info.args) argv.push(...this.wordsOf(arg))
    emitInvocations(this, { node, ctx, argv, assignments, info })
  }

  private wordsOf(node: Node): EvalWord[] {
    return this.words.fields(node)
  }

  private declaration(node: Node, ctx: WalkContext): void {
    const argv: EvalWord[] = []
    for (const child of node.children) {
      if (!child) continue
      if (child.type === 'variable_assignment') {
        const { name, value } = this.assign(child, ctx)
        // Its substitutions are already queued by `assign`.
        argv.push({ value: `${name}=${value.value}`, static: value.static, source: { subs: [], feeds: [] } })
      } else if (!child.isNamed) argv.push(literal(child.text))
      else {
        if (node.type === 'unset_command') this.variables.delete(child.text)
        argv.push(...this.wordsOf(child))
      }
    }
    emitInvocations(this, { node, ctx, argv, assignments: [], info: readRedirects([], this.words), noPeel: true })
  }

  private assignmentValue(node: Node): { name: string; value: EvalWord } {
    const named = node.namedChildren.filter((c): c is Node => c !== null)
    const name = named[0]?.text ?? ''
    const valueNode = named.length > 1 ? named[named.length - 1] : undefined
    const value = valueNode ? this.words.single(valueNode) : literal('')
    return { name, value }
  }

  /** A standalone assignment (`a=r`): remembered for later words; its substitutions are walked. */
  private assign(node: Node, ctx: WalkContext): { name: string; value: EvalWord } {
    const { name, value } = this.assignmentValue(node)
    const sinks: Sink[] = value.source.subs.length > 0 ? [{ collected: [] }] : []
    for (const sub of value.source.subs) this.substitution(sub, ctx, undefined, ctx.stdin, sinks)
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      const append = node.children.some((c) => c?.type === '+=')
      const before = append ? this.variables.get(name) : undefined
      this.variables.set(name, {
        value: (before?.value ?? '') + value.value,
        static: (before?.static ?? true) && value.static,
        feeds: [...(before?.feeds ?? []), ...value.source.feeds, ...sinks]
      })
    }
    return { name, value }
  }

  private pipeline(stages: { node: Node; extra?: Node[] }[], ctx: WalkContext): void {
    const sinks: Sink[] = stages.map(() => ({ collected: [] }))
    this.push(
      ...stages.map((stage, i) => ({
        node: stage.node,
        extra: stage.extra,
        ctx: { ...ctx, concurrent: ctx.concurrent || stages.length > 1, stdin: i === 0 ? ctx.stdin : sinks.slice(0, i), sinks: [...ctx.sinks, sinks[i] as Sink] }
      }))
    )
  }

  /**
   * A statement with redirections. The grammar hangs whatever follows a here-doc operator on the
   * here-doc node (`cat <<E | sh` puts `| sh` inside it), so that continuation is taken out here.
   */
  private redirected(node: Node, ctx: WalkContext): void {
    const body = node.childForFieldName('body')
    const redirectNodes = node.namedChildren.filter((c): c is Node => c !== null && c.id !== body?.id)
    let pipe: Node | null = null
    const rest: Node[] = []
    for (const r of redirectNodes) {
      if (r.type !== 'heredoc_redirect') continue
      for (const c of r.namedChildren) {
        if (!c || !statementTypes.has(c.type)) continue
        if (c.type === 'pipeline' && c.child(0)?.type === '|') pipe = c
        else rest.push(c)
      }
    }
    const after = rest.map((n) => ({ node: n, ctx }))
    if (body && (body.type === 'command' || body.type === 'pipeline' || pipe)) {
      const stages: { node: Node; extra?: Node[] }[] = body.type === 'pipeline' ? flattenPipeline(body).map((n) => ({ node: n })) : [{ node: body }]
      const last = stages[stages.length - 1]
      if (last) last.extra = redirectNodes
      if (pipe) stages.push(...flattenPipeline(pipe).map((n) => ({ node: n })))
      this.push(...after)
      if (stages.length === 1) this.push({ node: body, ctx, extra: redirectNodes })
      else this.pipeline(stages, ctx)
      return
    }
    const info = readRedirects(redirectNodes, this.words)
    const stdinSink: Sink = { collected: [] }
    const inner: WalkContext = { ...ctx, redirects: [...ctx.redirects, ...info.redirects], stdin: info.hasStdin ? [stdinSink] : ctx.stdin }
    // Queued after the body so they run first: the body reads their output.
    this.push(...(body ? [{ node: body, ctx: inner }] : []), ...after)
    for (const sub of info.stdinSubs) this.substitution(sub, ctx, undefined, ctx.stdin, [stdinSink])
    for (const sub of [...info.argSubs, ...info.outSubs]) this.substitution(sub, ctx)
  }
}

/** The stages of a pipeline, with nested pipeline nodes flattened (no recursion). */
function flattenPipeline(node: Node): Node[] {
  const out: Node[] = []
  const stack: Node[] = [node]
  while (stack.length > 0) {
    const next = stack.pop() as Node
    if (next.type !== 'pipeline') { out.push(next); continue }
    const named = next.namedChildren.filter((c): c is Node => c !== null)
    for (let i = named.length - 1; i >= 0; i--) stack.push(named[i] as Node)
  }
  return out
}
