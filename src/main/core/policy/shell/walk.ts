/**
 * The walk from a parse tree to the simple commands that would run. It is a loop over an explicit
 * task stack, never recursion over the tree, so `$($($(…)))` 500 deep costs stack entries, not
 * call frames. Each task carries its context: the function it is in, whether it runs concurrently,
 * the wrappers it runs under (`sh -c`, `eval`), which commands feed its stdin (earlier pipeline
 * stages, `< <(…)`), where its own commands' output goes (a substitution's parent), and the
 * redirections of an enclosing compound statement. Scripts found inside the line (`sh -c STRING`,
 * `eval`, a here-doc fed to a shell) are parsed and walked the same way, to a bounded depth.
 * The body of backticks is parsed again when it has escapes bash removes first (`\``, `\$`,
 * `\\`), so nested backticks are seen. Every `$(…)`, backticks and `<(…)` runs: as a backstop,
 * once the tasks are done any substitution node of a walked tree the walk did not reach is walked.
 * A statement where the grammar expects a word (`coproc ( … )`) is walked as a statement.
 */
import type { Node, Tree } from 'web-tree-sitter'
import type { AnalysisConcern, CommandFeed, SimpleCommand } from '../command-analysis'
import { analysisLimits, type AnalysisBudget } from './budget'
import { assign, assignmentValue, declaration } from './assignments'
import { emitInvocations } from './emit'
import { flattenPipeline, redirected } from './redirected'
import { readRedirects } from './redirects'
import { evaluatedNode } from './runtime-code'
import { clip, WordEvaluator, type EvalWord, type Sink, type VariableValue } from './words'
import { statementTypes, type WalkContext } from './walk-context'

/** Parses a nested script within the line's budget; null when the budget ran out. */
export type ParseText = (text: string) => Tree | null

type Task = { node: Node; ctx: WalkContext; extra?: Node[] } | { text: string; ctx: WalkContext }

/** Walks one line; `commands` and `concerns` fill as it goes. */
export class LineWalker {
  readonly commands: SimpleCommand[] = []
  readonly concerns: AnalysisConcern[] = []
  readonly variables = new Map<string, VariableValue>()
  readonly words: WordEvaluator
  private readonly tasks: Task[] = []
  /** Substitutions queued so far (node ids), and the trees walked: see `unwalked`. */
  private readonly seen = new Set<number>()
  private readonly roots: { node: Node; ctx: WalkContext }[] = []

  constructor(
    private readonly parse: ParseText,
    readonly budget: AnalysisBudget
  ) {
    this.words = new WordEvaluator(this.variables, budget, parse, (node) => evaluatedNode(this, node))
  }

  /** Walks a parsed line to the end or until the budget runs out. */
  run(root: Node): void {
    const ctx: WalkContext = { concurrent: false, wrappers: [], stdin: [], sinks: [], redirects: [], dynamic: false, depth: 0 }
    this.roots.push({ node: root, ctx })
    this.push({ node: root, ctx })
    for (let next: Task | null = null; ; next = null) {
      while (this.tasks.length > 0 && !this.budget.exhausted) {
        const task = this.tasks.pop() as Task
        if ('text' in task) this.script(task.text, task.ctx)
        else if (this.budget.node()) this.visit(task)
      }
      if (!this.budget.exhausted) next = this.unwalked()
      if (!next) break
      this.push(next)
    }
    if (this.budget.exhausted) this.concern('command.too_complex', `the analysis stopped: ${this.budget.exhausted}`)
  }

  /**
   * A backstop for the rule that every substitution runs: the first `$(…)`, backticks or `<(…)`
   * in a walked tree that the walk did not reach (a place the walk does not look into), walked
   * with the context of its tree.
   */
  private unwalked(): Task | null {
    for (const root of this.roots) {
      // Most lines have no substitution at all: the text says so without a search of the tree.
      if (!/\$\(|`|[<>]\(/.test(root.node.text)) continue
      for (const node of root.node.descendantsOfType(['command_substitution', 'process_substitution'])) {
        if (node && !this.seen.has(node.id)) return { node, ctx: root.ctx }
      }
    }
    return null
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
    this.seen.add(node.id)
    const inner: WalkContext = { ...ctx, target, stdin, sinks, redirects: [], nesting }
    const text = node.text
    if (text.startsWith('`')) {
      // Bash reads the body of backticks again after removing the backslash in `\``, `\$`, `\\`.
      const body = text.slice(1, -1)
      const unescaped = body.replace(/\\([$`\\])/g, '$1')
      if (unescaped !== body) {
        for (const sub of node.descendantsOfType(['command_substitution', 'process_substitution'])) if (sub) this.seen.add(sub.id)
        const tree = this.parse(unescaped)
        if (!tree) this.budget.stop('a substitution did not parse within the time budget')
        else {
          this.roots.push({ node: tree.rootNode, ctx: inner })
          this.push({ node: tree.rootNode, ctx: inner })
        }
        return
      }
    }
    const body = node.namedChildren.filter((c): c is Node => c !== null)
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
    const inner: WalkContext = { ...ctx, depth: ctx.depth + 1 }
    this.roots.push({ node: tree.rootNode, ctx: inner })
    this.push({ node: tree.rootNode, ctx: inner })
  }

  private visit(task: Extract<Task, { node: Node }>): void {
    const { node, ctx } = task
    switch (node.type) {
      case 'command':
        return this.command(node, ctx, task.extra ?? [])
      case 'declaration_command':
      case 'unset_command':
        return declaration(this, node, ctx)
      case 'variable_assignment':
        assign(this, node, ctx)
        return
      case 'compound_statement':
        // `{echo;}` and `f() {}`: bash needs a blank after `{` and a command inside.
        if (node.text.startsWith('{') && (!/^\{\s/.test(node.text) || node.namedChildCount === 0)) {
          this.concern('command.parse_error', `a { … } group is malformed: ${clip(node.text, 60)}`)
        }
        evaluatedNode(this, node)
        break
      case 'test_command':
      case 'c_style_for_statement':
        evaluatedNode(this, node)
        break
      case 'pipeline':
        return this.pipeline(
          flattenPipeline(node).map((n) => ({ node: n })),
          ctx
        )
      case 'redirected_statement':
        return redirected(this, node, ctx)
      case 'function_definition': {
        const body = node.childForFieldName('body')
        if (body) this.push({ node: body, ctx: { ...ctx, fn: node.childForFieldName('name')?.text ?? '' } })
        return
      }
      case 'command_substitution':
      case 'process_substitution':
        return this.substitution(node, ctx)
      case 'for_statement': {
        const variable = node.childForFieldName('variable')?.text
        if (variable) this.variables.delete(variable)
        break
      }
    }
    const children = node.children
    const next: Task[] = []
    // `;;` belongs in a case item; the grammar also accepts it between plain commands.
    const semis = node.type === 'program' || node.type === 'compound_statement' || node.type === 'subshell' || node.type === 'do_group'
    for (let i = 0; i < children.length; i++) {
      const child = children[i]
      if (!child?.isNamed) {
        if (semis && child?.type === ';;') this.concern('command.parse_error', '`;;` outside a case statement')
        continue
      }
      const background = children[i + 1]?.type === '&'
      next.push({ node: child, ctx: background ? { ...ctx, concurrent: true } : ctx })
    }
    this.push(...next)
  }

  private command(node: Node, ctx: WalkContext, extra: Node[]): void {
    const assignments: { name: string; value: EvalWord }[] = []
    const argv: EvalWord[] = []
    const redirectNodes = [...extra]
    const nested: Task[] = []
    for (const child of node.namedChildren) {
      if (!child) continue
      const type = child.type
      if (type === 'variable_assignment') assignments.push(assignmentValue(this, child))
      else if (type === 'command_name') argv.push(...this.wordsOf(child.firstNamedChild ?? child))
      else if (type.endsWith('_redirect')) redirectNodes.push(child)
      else if (statementTypes.has(type)) nested.push({ node: child, ctx })
      else argv.push(...this.wordsOf(child))
    }
    // A statement where the grammar expects a word (`coproc ( … )`): its commands run.
    this.push(...nested)
    const info = readRedirects(redirectNodes, this.words)
    for (const arg of info.args) argv.push(...this.wordsOf(arg))
    emitInvocations(this, { node, ctx, argv, assignments, info })
  }

  private wordsOf(node: Node): EvalWord[] {
    return this.words.fields(node)
  }

  /** Queues the stages of a pipeline, each fed by the ones before it. */
  pipeline(stages: { node: Node; extra?: Node[] }[], ctx: WalkContext): void {
    const sinks: Sink[] = stages.map(() => ({ collected: [] }))
    this.push(
      ...stages.map((stage, i) => ({
        node: stage.node,
        extra: stage.extra,
        ctx: {
          ...ctx,
          concurrent: ctx.concurrent || stages.length > 1,
          stdin: i === 0 ? ctx.stdin : sinks.slice(0, i),
          sinks: [...ctx.sinks, sinks[i] as Sink]
        }
      }))
    )
  }
}
