import type { AnalysisConcern, CommandAnalysis, CommandDecision, CommandPolicyInput, CommandWord, SimpleCommand } from './command-analysis'
import { carriedHit, carriedInput, carriedReadings, linkedHit, linkedReadings, unresolvedHit } from './command-rules-carried'
import { defaultDenyHit, type RuleHit } from './command-rules-deny'
import { workingFolders } from './command-rules-folders'
import { gitCodeConfig } from './command-rules-git'
import { canonical, listReadings } from './command-rules-readings'
import { informationalFlags, riskFlagOrder, riskFlagsOf } from './command-rules-risk'
import { baseName, shown, viewOf, type CommandView } from './command-rules-words'

/**
 * The command rules (SPEC §6.3): from the analysis of a command line and the agent's profile, the
 * decision `run`, `ask` or `blocked`, the rule that decided, and the risk flags. Pure and
 * deterministic: the same analysis and input always give the same decision, and nothing the model
 * writes can change a rule. Precedence, whatever the ask mode: the default denylist families, then
 * the profile's denylist, then its allowlist block; then analysis concerns and risk flags ask (or
 * block under `ask: never` for concerns); `ask: always` asks for everything else.
 *
 * The profile's lists match word prefixes, the program by basename, wrappers included; for git the
 * global options are skipped first (`git -C . push` and `git -c x=y push` match "git push"). A
 * command that takes its remaining words from stdin (`echo push | xargs git`) matches an entry it
 * is a prefix of: with the words a static `echo`/`printf` gives when that is where they come from,
 * and otherwise as the entry itself (any interpretation that is denied is denied). Every command of
 * a line — substitutions and wrapped commands too — must be on the allowlist when one is set.
 * Git configuration that runs a program (`git -c core.fsmonitor=CMD`, `GIT_CONFIG_*`) asks as
 * `command.dynamic`, and its value is also read as a command for the deny families.
 */

/** The words a command's stdin gives it when a static `echo`/`printf` feeds it, else undefined. */
function stdinWords(view: CommandView, all: readonly CommandView[]): string[] | undefined {
  const sources = view.command.fedBy.map((feed) => all[feed.from])
  const source = sources.length === 1 ? sources[0] : undefined
  if (!source || !['echo', 'printf'].includes(source.program) || !source.command.argv.every((w) => w.static)) return undefined
  return source.args
    .filter((a) => !/^-[neE]+$/.test(a))
    .join(' ')
    .split(/\s+/)
    .filter((w) => w !== '')
}

/** The custom denylist hit (`denylist.custom`) or allowlist miss (`allowlist.not_listed`), if any. */
export function profileListHit(views: readonly CommandView[], input: Pick<CommandPolicyInput, 'denylist' | 'allowlist'>): RuleHit | undefined {
  const denylist = input.denylist.map((entry) => ({ entry: entry.trim(), words: canonical(prefixOf(entry)) })).filter((d) => d.words.length > 0)
  const readingsOf = listReadings
  for (const view of views) {
    const candidates = [...readingsOf(view), ...view.command.wrappers.map((w) => [baseName(w.argv[0] ?? ''), ...w.argv.slice(1)])]
    const fed = view.command.argsFromStdin ? stdinWords(view, views) : undefined
    for (const { entry, words } of denylist) {
      const matched = candidates.find((argv) => startsWith(argv, words))
      if (matched) return { rule: 'denylist.custom', reason: `${shown(matched)}: matches the profile's denylist entry "${entry}"` }
      if (!view.command.argsFromStdin) continue
      const own = readingsOf(view)[0]!
      if (fed ? startsWith([...own, ...fed], words) : startsWith(words, own)) {
        return {
          rule: 'denylist.custom',
          reason: `${shown(own)} takes its remaining words from stdin${fed ? ` (${fed.join(' ')})` : ''}: can match the profile's denylist entry "${entry}"`
        }
      }
    }
  }
  const allowlist = input.allowlist.map((entry) => canonical(prefixOf(entry))).filter((words) => words.length > 0)
  if (input.allowlist.length > 0) {
    for (const view of views) {
      if (!readingsOf(view).some((argv) => allowlist.some((entry) => startsWith(argv, entry)))) {
        return {
          rule: 'allowlist.not_listed',
          reason: `${shown(view)}: not on the profile's allowlist (${input.allowlist.map((e) => `"${e.trim()}"`).join(', ')})`
        }
      }
    }
  }
  return undefined
}

/**
 * Git configuration that runs a program: one `command.dynamic` concern per git command, and the
 * values read as commands (split at `;`, `&`, `|` and spaces) for the deny families.
 */
function gitCodeReadings(views: readonly CommandView[]): { concerns: AnalysisConcern[]; readings: CommandView[] } {
  const exported = views
    .filter((v) => v.program === 'export')
    .flatMap((v) => v.args.filter((a) => a.includes('=')).map((a) => ({ name: a.slice(0, a.indexOf('=')), value: a.slice(a.indexOf('=') + 1) })))
  const concerns: AnalysisConcern[] = []
  const readings: CommandView[] = []
  for (const view of views) {
    const code = gitCodeConfig(view, [...exported, ...view.command.assignments.map((a) => ({ name: a.name, value: a.value.value }))])
    if (code.length === 0) continue
    concerns.push({ rule: 'command.dynamic', reason: `${shown(view)}: git runs ${code[0]!.key}=${code[0]!.value.slice(0, 60)} as a program` })
    for (const { value } of code) {
      for (const part of value.replace(/^\s*!/, '').split(/[;&|\n]+/)) {
        const argv = part
          .split(/\s+/)
          .filter((w) => w !== '')
          .map((w) => ({ value: w.replace(/^['"]|['"]$/g, ''), static: false }))
        if (argv.length > 0)
          readings.push(viewOf({ ...view.command, argv, wrappers: [], redirects: [], fedBy: [], argsFromStdin: false, text: part.trim().slice(0, 200) }))
      }
    }
  }
  return { concerns, readings }
}

/** A list entry as words, the program by basename (`/usr/bin/git push` is `git push`). */
export function prefixOf(entry: string): string[] {
  const words = entry
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '')
  return words.length > 0 ? [baseName(words[0]!), ...words.slice(1)] : []
}

export const startsWith = (argv: readonly string[], prefix: readonly string[]) => prefix.length <= argv.length && prefix.every((word, i) => argv[i] === word)

const fieldSeparator = /\s+|\$\{IFS\}|\$IFS(?![A-Za-z0-9_])/
/** A name still holding a substitution splits into its source text, not into words that would run. */
const substitution = /\$\(|`|<\(|>\(/

/**
 * Second readings for the denylist: a command whose name is a dynamic word holding spaces
 * (`rm${IFS}-rf${IFS}/`, `$CMD` with `CMD='rm -rf /'`) split as the shell would, and one whose name
 * is the output of a static `echo`.
 */
function splitReadings(commands: readonly SimpleCommand[]): CommandView[] {
  const split = (w: CommandWord) =>
    w.static
      ? [w]
      : w.value
          .split(fieldSeparator)
          .filter((v) => v !== '')
          .map((value) => ({ value, static: false }))
  return commands.flatMap((c) => {
    const read = echoedName(c, commands)
    const name = read.argv[0]
    if (!name || name.static || (read === c && (substitution.test(name.value) || !fieldSeparator.test(name.value.trim())))) return []
    return [viewOf({ ...read, argv: read.argv.flatMap(split) })]
  })
}

/**
 * A command whose name is the output of a static `echo` (`` `echo rm` -rf / ``, `$(echo rm) -rf /`),
 * read with that output in its place: the analysis keeps such a name as source text.
 */
function echoedName(command: SimpleCommand, all: readonly SimpleCommand[]): SimpleCommand {
  const name = command.argv[0]
  if (!name || name.static) return command
  for (const feed of command.fedBy) {
    const source = all[feed.from]
    if (feed.how !== 'argument' || !source || (name.value !== `\`${source.text}\`` && name.value !== `$(${source.text})`)) continue
    if (baseName(source.argv[0]?.value ?? '') !== 'echo' || !source.argv.every((w) => w.static)) continue
    const output = source.argv
      .slice(1)
      .map((w) => w.value)
      .filter((v) => !/^-[neE]+$/.test(v))
      .join(' ')
    return { ...command, argv: [{ value: output, static: false }, ...command.argv.slice(1)] }
  }
  return command
}

/**
 * The most word text the rules examine for one line. Lines are at most 64 KiB, but nested
 * substitutions repeat their inner text in every enclosing word (`$($($(…)))`), so the words can
 * add up to far more; past this the line asks (`command.too_complex`) instead of costing time.
 */
export const maxAnalysedChars = 128 * 1024

function analysedChars(commands: readonly SimpleCommand[]): number {
  let total = 0
  for (const c of commands) {
    for (const w of c.argv) total += w.value.length
    for (const r of c.redirects) total += r.target.value.length
    for (const w of c.wrappers) for (const a of w.argv) total += a.length
  }
  return total
}

/** The decision for one analysed command line under the agent's profile. */
export function decideCommandLine(analysis: CommandAnalysis, input: CommandPolicyInput): CommandDecision {
  if (!analysis.ok) {
    // Nothing can be said about what would run: ask (block under `never`); a NUL byte never runs.
    const decision = analysis.rule === 'command.nul_byte' || input.ask === 'never' ? 'blocked' : 'ask'
    return { decision, rule: analysis.rule, reason: analysis.reason, riskFlags: [], commands: [] }
  }
  const commands = analysis.commands.map((c) => c.argv.map((w) => w.value))
  const size = analysedChars(analysis.commands)
  if (size > maxAnalysedChars) {
    const reason = `the analysis holds ${size} characters of words, more than the rules examine (${maxAnalysedChars})`
    return { decision: input.ask === 'never' ? 'blocked' : 'ask', rule: 'command.too_complex', reason, riskFlags: [], commands }
  }
  const views = analysis.commands.map(viewOf)
  const git = gitCodeReadings(views)
  const linked = linkedReadings(views)
  const split = [...splitReadings(analysis.commands), ...linked]
  const readings = [...views, ...split, ...git.readings]
  const folders = workingFolders(readings, input.cwd)
  const recovered: string[][] = []
  const flags = riskFlagsOf(views, input, folders, recovered)
  const riskFlags = flags.map((f) => f.flag)
  const decided = (decision: CommandDecision['decision'], rule: string | null, reason: string): CommandDecision => ({
    decision,
    rule,
    reason,
    riskFlags,
    commands,
    ...(recovered.length > 0 ? { recoverable: recovered } : {})
  })

  const hit = defaultDenyHit(readings, folders) ?? profileListHit([...views, ...split], input)
  if (hit) return decided('blocked', hit.rule, hit.reason)
  // What the line carries or leaves to run time, read against the same rules: it asks, never runs silently.
  const denylist = input.denylist.map((entry) => ({ entry: entry.trim(), words: canonical(prefixOf(entry)) })).filter((d) => d.words.length > 0)
  const carried = carriedReadings(views)
  const concern =
    carriedHit(carried, views, folders, denylist) ??
    unresolvedHit(views, folders, denylist) ??
    linkedHit(linked, denylist) ??
    analysis.concerns[0] ??
    git.concerns[0]
  if (concern) {
    if (input.ask === 'never') return decided('blocked', concern.rule, `${concern.reason} (ask: never, so it cannot wait for the operator)`)
    return decided('ask', concern.rule, concern.reason)
  }
  const argvCarried = carried.filter((c) => !c.text)
  // What a program runs on the line's behalf (xargs rm, find -exec) is not vouched for by the checkpoint: it asks as before.
  const carriedFlags =
    argvCarried.length === 0
      ? []
      : riskFlagsOf(
          argvCarried.map((c) => c.view),
          carriedInput(input),
          argvCarried.map((c) => folders[c.carrier] ?? [null])
        ).filter((f) => !riskFlags.includes(f.flag))
  if (carriedFlags.length > 0) {
    const all = new Set([...riskFlags, ...carriedFlags.map((f) => f.flag)])
    riskFlags.splice(0, riskFlags.length, ...riskFlagOrder.filter((f) => all.has(f)))
  }
  const flag = flags.find((f) => !informationalFlags.has(f.flag))
  if (input.ask === 'never')
    return decided('run', null, flag || carriedFlags[0] ? `runs without asking (ask: never); risk flags: ${riskFlags.join(', ')}` : 'no rule applies')
  if (flag)
    return decided('ask', `risk.${flag.flag}`, `${flag.why}${riskFlags.length > 1 ? `; also ${riskFlags.filter((f) => f !== flag.flag).join(', ')}` : ''}`)
  const carriedFlag = carriedFlags[0]
  if (carriedFlag) {
    const from = argvCarried.find((c) => carriedFlag.why.startsWith(`${shown(c.view)} `))
    const carrier = from ? views[from.carrier] : undefined
    const reason =
      from && carrier
        ? `${shown(carrier)}: ${carrier.program} can run \`${shown(from.view)}\`, which${carriedFlag.why.slice(shown(from.view).length)}`
        : carriedFlag.why
    return decided('ask', 'command.carried', `${reason} (risk flag ${carriedFlag.flag})`)
  }
  if (input.ask === 'always') return decided('ask', 'ask.always', 'the profile asks before every command (ask: always)')
  return decided('run', null, flags[0]?.why ?? 'no rule applies')
}
