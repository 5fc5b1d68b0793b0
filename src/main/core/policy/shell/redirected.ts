/**
 * Statements with redirections (`cmd >x`, `{ …; } <in`, `cat <<E | sh`) and pipeline stages.
 */
import type { Node } from 'web-tree-sitter'
import { readRedirects } from './redirects'
import type { LineWalker } from './walk'
import { statementTypes, type WalkContext } from './walk-context'
import { clip, type Sink } from './words'

/**
 * A statement with redirections. The grammar hangs whatever follows a here-doc operator on the
 * here-doc node (`cat <<E | sh` puts `| sh` inside it), so that continuation is taken out here.
 */
export function redirected(w: LineWalker, node: Node, ctx: WalkContext): void {
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
    w.push(...after)
    if (stages.length === 1) w.push({ node: body, ctx, extra: redirectNodes })
    else w.pipeline(stages, ctx)
    return
  }
  const info = readRedirects(redirectNodes, w.words)
  // `{ …; } >x y`: bash refuses a word after a compound statement's redirection.
  if (info.args.length > 0) w.concern('command.parse_error', `a word follows the redirection of a compound statement: ${clip(node.text, 80)}`)
  const stdinSink: Sink = { collected: [] }
  const inner: WalkContext = { ...ctx, redirects: [...ctx.redirects, ...info.redirects], stdin: info.hasStdin ? [stdinSink] : ctx.stdin }
  // Queued after the body so they run first: the body reads their output.
  w.push(...(body ? [{ node: body, ctx: inner }] : []), ...after)
  for (const sub of info.stdinSubs) w.substitution(sub, ctx, undefined, ctx.stdin, [stdinSink])
  for (const sub of [...info.argSubs, ...info.outSubs]) w.substitution(sub, ctx)
}

/** The stages of a pipeline, with nested pipeline nodes flattened (no recursion). */
export function flattenPipeline(node: Node): Node[] {
  const out: Node[] = []
  const stack: Node[] = [node]
  while (stack.length > 0) {
    const next = stack.pop() as Node
    if (next.type !== 'pipeline') {
      out.push(next)
      continue
    }
    const named = next.namedChildren.filter((c): c is Node => c !== null)
    for (let i = named.length - 1; i >= 0; i--) stack.push(named[i] as Node)
  }
  return out
}
