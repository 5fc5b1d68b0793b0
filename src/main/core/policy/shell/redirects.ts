/**
 * Redirections of a command or a compound statement: the `CommandRedirect`s, and what reaches
 * stdin (a here-string, a here-doc body, `< <(…)`) so the walk can tell a shell fed its script
 * from a file descriptor apart from one fed by another command.
 */
import type { Node } from 'web-tree-sitter'
import type { CommandRedirect } from '../command-analysis'
import type { EvalWord, WordEvaluator } from './words'

/** What the redirections of one statement amount to. */
export type RedirectInfo = {
  redirects: CommandRedirect[]
  /** True when stdin comes from a redirection rather than the pipe. */
  hasStdin: boolean
  /** The text stdin carries (here-string or here-doc body), when it is text. */
  stdinText?: EvalWord
  /** Substitutions whose output reaches stdin (`< <(…)`, `$(…)` inside a here-doc or here-string). */
  stdinSubs: Node[]
  /** Output process substitutions (`> >(…)`): they read this command's output. */
  outSubs: Node[]
  /** Substitutions in redirect targets (`> $(…)`): their output is a file name. */
  argSubs: Node[]
  /**
   * Words the grammar hangs on a redirection that are arguments of the command, in order: after a
   * here-doc (`cat <<E file`), and every destination after the first (`rm 2>/dev/null -rf /` gives
   * one `file_redirect` with the destinations `/dev/null`, `-rf`, `/`).
   */
  args: Node[]
}

const writing = new Set(['>', '>>', '&>', '&>>', '>|', '<>'])
const wordTypes = new Set([
  'word',
  'string',
  'raw_string',
  'ansi_c_string',
  'concatenation',
  'simple_expansion',
  'expansion',
  'number',
  'command_substitution',
  'process_substitution',
  'translated_string'
])

/** Evaluates the redirect nodes of one statement. */
export function readRedirects(nodes: Node[], words: WordEvaluator): RedirectInfo {
  const info: RedirectInfo = { redirects: [], hasStdin: false, stdinSubs: [], outSubs: [], argSubs: [], args: [] }
  const queue = [...nodes]
  for (let q = 0; q < queue.length; q++) {
    const node = queue[q] as Node
    const children = node.children.filter((c): c is Node => c !== null)
    if (node.type === 'file_redirect') {
      const fdNode = children.find((c) => c.type === 'file_descriptor')
      const op = children.find((c) => !c.isNamed)?.type ?? '>'
      const dests = children.filter((c) => c.isNamed && c.type !== 'file_descriptor' && c.type !== 'ERROR')
      const dest = dests[0]
      if (!dest) continue
      info.args.push(...dests.slice(1))
      const target = words.single(dest)
      const fd = fdNode ? Number(fdNode.text) : undefined
      const writes = writing.has(op) || (op === '>&' && !/^(\d+|-)$/.test(target.value))
      info.redirects.push({ op, ...(fd === undefined ? {} : { fd }), target: plain(target), writes })
      if (op.startsWith('<') && (fd === undefined || fd === 0) && op !== '<&') info.hasStdin = true
      if (dest.type === 'process_substitution') (op.startsWith('<') ? info.stdinSubs : info.outSubs).push(dest)
      else info.argSubs.push(...target.source.subs)
    } else if (node.type === 'herestring_redirect') {
      const values = children.filter((c) => c.isNamed && c.type !== 'ERROR')
      const value = values[0]
      if (!value) continue
      info.args.push(...values.slice(1))
      const target = words.single(value)
      info.redirects.push({ op: '<<<', target: plain(target), writes: false })
      info.hasStdin = true
      info.stdinText = target
      info.stdinSubs.push(...target.source.subs)
    } else if (node.type === 'heredoc_redirect') {
      const op = children.find((c) => !c.isNamed && c.type.startsWith('<<'))?.type ?? '<<'
      const start = children.find((c) => c.type === 'heredoc_start')?.text ?? ''
      const body = children.find((c) => c.type === 'heredoc_body')
      let target: EvalWord
      if (!body || /['"\\]/.test(start)) {
        const raw = body?.text ?? ''
        target = { value: op === '<<-' ? raw.replace(/^\t+/gm, '') : raw, static: true, source: { subs: [], feeds: [] } }
      } else target = words.single(body)
      info.redirects.push({ op, target: plain(target), writes: false })
      info.hasStdin = true
      info.stdinText = target
      info.stdinSubs.push(...target.source.subs)
      for (const child of children) {
        if (child.type === 'file_redirect' || child.type === 'herestring_redirect') queue.push(child)
        else if (wordTypes.has(child.type)) info.args.push(child)
      }
    }
  }
  return info
}

function plain(word: EvalWord): { value: string; static: boolean } {
  return { value: word.value, static: word.static }
}
