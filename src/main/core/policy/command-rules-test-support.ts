import type { CommandAnalysis, CommandPolicyInput, CommandWord, SimpleCommand } from './command-analysis'
import { decideCommandLine } from './command-rules'

// Hand-built analyses for the rules' unit tests: what each rule reads from correctly parsed argv,
// independent of the parser (the corpus runs real lines through the real analyzer).

export const profile: CommandPolicyInput = { ask: 'on_risk', network: 'none', denylist: [], allowlist: [] }
export const word = (value: string): CommandWord => ({ value, static: !/[$*?` ]/.test(value) })
export const command = (argv: string[], extra: Partial<SimpleCommand> = {}): SimpleCommand => ({
  argv: argv.map(word),
  wrappers: [],
  assignments: [],
  redirects: [],
  fedBy: [],
  argsFromStdin: false,
  concurrent: false,
  text: argv.join(' '),
  ...extra
})
export const line = (...commands: SimpleCommand[]): CommandAnalysis => ({ ok: true, commands, concerns: [] })
export const decide = (analysis: CommandAnalysis, input: Partial<CommandPolicyInput> = {}) => decideCommandLine(analysis, { ...profile, ...input })
