/**
 * From one command node to `SimpleCommand`s: the wrappers are peeled, each program that runs is
 * recorded with its feeds, scripts are queued for parsing, and the command's substitutions are
 * queued with the feed they make (`argument`, or `script` when the word is code a shell or `eval`
 * runs; `stdin` for `< <(…)`). What is only known at run time becomes a `command.dynamic` concern,
 * while the command still appears with its best reading so deny rules can match it.
 */
import type { Node } from 'web-tree-sitter'
import type { CommandFeed, CommandRedirect, CommandWord, SimpleCommand } from '../command-analysis'
import { analysisLimits } from './budget'
import type { RedirectInfo } from './redirects'
import { assignmentCode, evaluatedArguments } from './runtime-code'
import type { LineWalker } from './walk'
import type { WalkContext } from './walk-context'
import { peelWrappers, programName, type Invocation, type RunInvocation } from './wrappers'
import { clip, type EvalWord, type Sink, type SourceWord } from './words'

/** One command node with its words evaluated. */
export type CommandSite = {
  node: Node
  ctx: WalkContext
  argv: EvalWord[]
  assignments: { name: string; value: EvalWord }[]
  info: RedirectInfo
  /** Declarations (`export`, `local`…) are recorded as written, not looked through. */
  noPeel?: boolean
}

type Emitted = { inv: Invocation; cmd: SimpleCommand }

/** Reserved words the grammar takes as a command name: bash refuses them there (`do echo`, `fi`). */
const reserved = new Set(['do', 'done', 'then', 'else', 'elif', 'fi', 'esac', 'in', '{', '}'])

/** Records what one command node runs, and queues everything nested in it. */
export function emitInvocations(w: LineWalker, site: CommandSite): void {
  const { node, ctx, argv, assignments, info } = site
  const later: (() => void)[] = []
  const text = clip(node.text, 200)
  const outRedirects = info.redirects.filter((r) => !r.op.startsWith('<<'))
  const invocations: Invocation[] =
    argv.length === 0
      ? []
      : site.noPeel
        ? [{ kind: 'run', argv, wrappers: [], assignments, argsFromStdin: false, stdinScript: null, scriptWords: [] }]
        : peelWrappers(argv, assignments, info.stdinText?.static ? info.stdinText.value : undefined)
  const emitted: Emitted[] = []
  for (const inv of invocations) {
    const label = programName(inv.kind === 'run' ? inv.argv[0] : inv.runner[0])
    if (inv.kind === 'script') {
      const code = inv.words.map((x) => x.value).join(' ')
      const scriptCtx: WalkContext = { ...ctx, wrappers: [...ctx.wrappers, ...inv.wrappers], redirects: [...ctx.redirects, ...outRedirects] }
      if (inv.words.every((x) => x.static)) {
        later.push(() => w.queueScript(code, scriptCtx))
        continue
      }
      w.concern('command.dynamic', `the script ${label} runs is only known at run time`)
      const runner: RunInvocation = { ...inv, kind: 'run', argv: inv.runner, wrappers: inv.wrappers.slice(0, -1), stdinScript: null, scriptWords: inv.words }
      emitted.push({ inv: runner, cmd: record(w, runner, ctx, text, info) })
      if (!inv.words.some((x) => x.source.subs.length > 0 || x.source.feeds.length > 0)) later.push(() => w.queueScript(code, { ...scriptCtx, dynamic: true }))
      continue
    }
    if (inv.stdinScript === 'shell' && info.stdinText) {
      const scriptCtx: WalkContext = {
        ...ctx,
        wrappers: [...ctx.wrappers, ...inv.wrappers, { argv: inv.argv.map((x) => x.value) }],
        redirects: [...ctx.redirects, ...outRedirects]
      }
      const stdinText = info.stdinText
      if (stdinText.static) {
        later.push(() => w.queueScript(stdinText.value, scriptCtx))
        continue
      }
      w.concern('command.dynamic', `the script ${label} reads from its here-document is only known at run time`)
      if (stdinText.source.subs.length === 0 && stdinText.source.feeds.length === 0)
        later.push(() => w.queueScript(stdinText.value, { ...scriptCtx, dynamic: true }))
    }
    if (inv.concern) w.concern('command.dynamic', inv.concern)
    emitted.push({ inv, cmd: record(w, inv, ctx, text, info) })
  }
  const seenValues = new Set<EvalWord>()
  for (const inv of invocations) {
    if (inv.kind === 'run') evaluatedArguments(w, inv.argv)
    for (const a of inv.assignments) {
      if (seenValues.has(a.value)) continue
      seenValues.add(a.value)
      later.push(() => assignmentCode(w, a.name, a.value, ctx))
    }
  }
  const first = argv[0]
  if (first?.static && reserved.has(first.value)) w.concern('command.parse_error', `the keyword ${first.value} is out of place`)
  if (programName(argv[0]) === 'alias') {
    for (const word of argv.slice(1)) {
      const eq = word.value.indexOf('=')
      if (eq <= 0) continue
      const name = word.value.slice(0, eq)
      w.concern('command.alias', `alias ${name} is defined (an alias can rename any command)`)
      later.push(() =>
        w.queueScript(word.value.slice(eq + 1), { ...ctx, wrappers: [...ctx.wrappers, { argv: ['alias', name] }], dynamic: ctx.dynamic || !word.static })
      )
    }
  }
  queueNested(w, site, emitted, later)
  for (const job of later.reverse()) job()
}

/** Queues the substitutions of the words and redirections, and records variable feeds. */
function queueNested(w: LineWalker, site: CommandSite, emitted: Emitted[], later: (() => void)[]): void {
  const { ctx, argv, assignments, info } = site
  const owners = new Map<SourceWord, { cmd?: SimpleCommand; index?: number; how: CommandFeed['how'] }>()
  for (const { inv, cmd } of emitted) {
    const index = w.commands.indexOf(cmd)
    const code = inv.kind === 'run' ? inv.scriptWords : inv.words
    for (const word of [...(inv.kind === 'run' ? inv.argv : []), ...inv.assignments.map((a) => a.value)]) {
      if (!owners.has(word.source)) owners.set(word.source, { cmd, index, how: 'argument' })
    }
    for (const word of code) owners.set(word.source, { cmd, index, how: 'script' })
  }
  const first = emitted[0]
  for (const word of [...argv, ...assignments.map((a) => a.value)]) {
    if (!owners.has(word.source)) owners.set(word.source, { cmd: first?.cmd, index: first ? w.commands.indexOf(first.cmd) : undefined, how: 'argument' })
  }
  for (const [source, owner] of owners) {
    if (owner.cmd) feedFrom(w, owner.cmd, source.feeds, owner.how)
    for (const sub of source.subs) {
      if (owner.how === 'script') w.concern('command.dynamic', `code run by ${programName(argv[0])} comes from another command's output`)
      if (sub.text.startsWith('>(')) later.push(() => w.substitution(sub, ctx, undefined, owner.index === undefined ? [] : [{ collected: [owner.index] }]))
      else later.push(() => w.substitution(sub, ctx, owner.cmd ? { cmd: owner.cmd, how: owner.how } : undefined))
    }
  }
  const reader = emitted[emitted.length - 1]
  const readsCode = reader?.inv.kind === 'run' && reader.inv.stdinScript !== null
  for (const sub of info.stdinSubs) {
    if (readsCode)
      w.concern('command.dynamic', `${programName(reader.inv.kind === 'run' ? reader.inv.argv[0] : undefined)} reads code from another command's output`)
    later.push(() => w.substitution(sub, ctx, reader ? { cmd: reader.cmd, how: readsCode ? 'script' : 'stdin' } : undefined))
  }
  const readerIndex = reader ? w.commands.indexOf(reader.cmd) : -1
  for (const sub of info.outSubs) later.push(() => w.substitution(sub, ctx, undefined, readerIndex < 0 ? [] : [{ collected: [readerIndex] }]))
  for (const sub of info.argSubs) later.push(() => w.substitution(sub, ctx, reader ? { cmd: reader.cmd, how: 'argument' } : undefined))
}

function feedFrom(w: LineWalker, cmd: SimpleCommand, sinks: Sink[], how: CommandFeed['how']): void {
  for (const sink of sinks) for (const from of sink.collected) w.feed(cmd, from, how)
}

/** Adds one `SimpleCommand` with its stdin feeds and its place in the enclosing sinks. */
function record(w: LineWalker, inv: RunInvocation, ctx: WalkContext, text: string, info: RedirectInfo): SimpleCommand {
  const word = (x: EvalWord): CommandWord => ({ value: x.value, static: x.static && !ctx.dynamic })
  const redirects: CommandRedirect[] = [...ctx.redirects, ...info.redirects]
  const cmd: SimpleCommand = {
    argv: inv.argv.map(word),
    wrappers: [...ctx.wrappers, ...inv.wrappers],
    assignments: inv.assignments.map((a) => ({ name: a.name, value: word(a.value) })),
    redirects,
    fedBy: [],
    argsFromStdin: inv.argsFromStdin,
    ...(ctx.fn === undefined ? {} : { inFunction: ctx.fn }),
    concurrent: ctx.concurrent,
    text
  }
  const index = w.commands.push(cmd) - 1
  if (w.commands.length > analysisLimits.maxCommands) w.budget.stop(`more than ${analysisLimits.maxCommands} commands`)
  for (const sink of ctx.sinks) sink.collected.push(index)
  if (ctx.target) w.feed(ctx.target.cmd, index, ctx.target.how)
  const name = inv.argv[0]
  if (name && !name.static) w.concern('command.dynamic', `the command name ${clip(name.value, 60)} is only known at run time`)
  if (!info.hasStdin) {
    const how: CommandFeed['how'] = inv.stdinScript ? 'script' : inv.argsFromStdin ? 'argument' : 'stdin'
    feedFrom(w, cmd, ctx.stdin, how)
    if (how === 'script' && cmd.fedBy.some((f) => f.how === 'script')) {
      const text = inv.stdinCode ? echoedText(w, cmd) : undefined
      if (text === undefined || !inv.stdinCode) w.concern('command.dynamic', `${programName(name)} reads code from another command's output`)
      else {
        const read = inv.stdinCode(text)
        if (read.opaque) w.concern('command.dynamic', `${programName(name)} reads commands that run code this reading does not follow`)
        const scriptCtx: WalkContext = {
          ...ctx,
          wrappers: [...cmd.wrappers, { argv: cmd.argv.map((x) => x.value) }],
          redirects: [...ctx.redirects, ...info.redirects.filter((r) => !r.op.startsWith('<<'))]
        }
        for (const code of read.code) if (code.trim() !== '') w.queueScript(code, scriptCtx)
      }
    }
  }
  return cmd
}

/**
 * The text a command's stdin gets when only static `echo` commands pipe it (`echo 'git push' | at
 * now`), else undefined: what they print, a line each (`-n` joins, `-e` with a backslash is not followed).
 */
function echoedText(w: LineWalker, cmd: SimpleCommand): string | undefined {
  let text = ''
  for (const feed of cmd.fedBy) {
    const source = w.commands[feed.from]
    if (!source || (source.argv[0]?.value ?? '').replace(/^.*\//, '') !== 'echo' || !source.argv.every((x) => x.static) || source.fedBy.length > 0)
      return undefined
    const args = source.argv.slice(1).map((x) => x.value)
    let i = 0
    let newline = true
    for (; i < args.length && /^-[neE]+$/.test(args[i]!); i++) {
      if (args[i]!.includes('n')) newline = false
      if (args[i]!.includes('e') && args.some((a) => a.includes('\\'))) return undefined
    }
    text += args.slice(i).join(' ') + (newline ? '\n' : '')
  }
  return text === '' ? undefined : text
}
