import type { CommandAnalysis, CommandFeed } from '../command-analysis'

type Commands = Extract<CommandAnalysis, { ok: true }>['commands']

/**
 * Every command whose output can reach command `index`, directly or through other commands
 * (`curl x | tee f | sh`: tee feeds sh by stdin, curl feeds tee), with the kind of the feed that
 * reaches `index` first. Rules that ask "does downloaded code run?" should look here, not only at
 * `fedBy`. Iterative, each command visited once.
 */
export function feedersOf(commands: Commands, index: number): { from: number; how: CommandFeed['how'] }[] {
  const seen = new Map<number, CommandFeed['how']>()
  const stack: { from: number; how: CommandFeed['how'] }[] = [...(commands[index]?.fedBy ?? [])]
  while (stack.length > 0) {
    const next = stack.pop() as CommandFeed
    if (seen.has(next.from) || next.from === index) continue
    seen.set(next.from, next.how)
    for (const f of commands[next.from]?.fedBy ?? []) stack.push({ from: f.from, how: next.how })
  }
  return [...seen].map(([from, how]) => ({ from, how }))
}
