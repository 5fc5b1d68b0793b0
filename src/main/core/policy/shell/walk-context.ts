/** What a part of the walk inherits, and which nodes are statements: shared by the walker and its helpers without a runtime cycle. */
import type { CommandFeed, CommandRedirect, CommandWrapper, SimpleCommand } from '../command-analysis'
import type { Sink } from './words'

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

/** Node types that are statements (walked as code, not read as words). */
export const statementTypes = new Set([
  'command',
  'pipeline',
  'list',
  'redirected_statement',
  'subshell',
  'compound_statement',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'function_definition',
  'negated_command',
  'declaration_command',
  'unset_command',
  'variable_assignment',
  'test_command'
])
