import { CommandRefusedError } from './command-line'
import { parseFind } from './find-expression'
import { gitSubcommandOptions, gitSubcommandSafety } from './git-options'
import { admitWorkspaceRepository } from './git-repository'
import { resolveHostProgram } from './host-programs'
import { parseArguments, type ParsedArguments } from './option-parser'
import { checkPathArgument } from './path-operands'
import { programArguments } from './program-options'

/** The host runner's default allowlist: read-only inspection (SPEC §4). */
export const defaultAllowedPrefixes = ['pwd', 'ls', 'cat', 'head', 'tail', 'wc', 'find', 'grep', 'rg', 'git status', 'git diff', 'git log', 'git show']

/**
 * A command the host runner may run: argv (program as an absolute path), the environment it
 * needs, and what to remove once it has ended (git's private directory).
 */
export type AdmittedCommand = {
  argv: string[]
  env: Record<string, string>
  release?: () => void
  /** Host directories the command reads besides the workspace (git's private directory). */
  hostPaths?: string[]
}

/** Where a command runs and what it may run: the policy's prefixes and the real workspace roots. */
export type AdmissionContext = { allowedPrefixes: readonly string[]; cwd: string; roots: readonly string[] }

/**
 * Admits an argv for the host runner. Its leading words must match an allowed prefix; its
 * arguments are parsed with the program's own grammar (a table of known options: unknown ones are
 * refused); every path it names, operand or option value, wherever it sits, must resolve inside the
 * roots; the program is taken from the system directories. git also gets its repository fixed
 * (see `admitWorkspaceRepository`) and every program-running setting switched off.
 */
export async function admitCommand(argv: string[], context: AdmissionContext): Promise<AdmittedCommand> {
  const prefix = context.allowedPrefixes.map((p) => p.trim().split(/\s+/)).find((words) => words.every((word, i) => argv[i] === word))
  if (!prefix) {
    throw new CommandRefusedError(`${argv[0]} is not on this runner's allowlist (${context.allowedPrefixes.join(', ')})`)
  }
  const name = argv[0]!
  if (name === 'git') return admitGit(argv, context)
  for (const path of pathArguments(name, argv.slice(1))) checkPathArgument(path, context.cwd, context.roots)
  const program = resolveHostProgram(name, context.roots)
  // rg: a config file (RIPGREP_CONFIG_PATH) could add --pre; the variable is refused, this makes it certain.
  const extra = name === 'rg' ? ['--no-config'] : []
  return { argv: [program, ...extra, ...argv.slice(1)], env: {} }
}

/** The arguments of a non-git program that name paths, per its grammar. */
function pathArguments(name: string, args: string[]): string[] {
  if (name === 'find') {
    const { startingPoints, pathValues } = parseFind(args)
    return [...startingPoints, ...pathValues]
  }
  const grammar = programArguments[name]
  if (!grammar) return operandsOnly(name, args)
  const parsed = parseArguments(name, args, grammar.table)
  const operands = [...parsed.operands]
  const patternGiven = parsed.options.some((option) => grammar.patternOperand?.unless.includes(option.name))
  if (grammar.patternOperand && !patternGiven) operands.shift()
  return [...operands, ...optionPaths(parsed)]
}

/**
 * A program the operator added to the allowlist without a table here: no options are accepted
 * (their meaning is unknown) and every argument is a path that must stay inside the workspace.
 */
function operandsOnly(name: string, args: string[]): string[] {
  const option = args.find((arg) => arg.startsWith('-') && arg !== '-')
  if (option !== undefined) throw new CommandRefusedError(`${name} ${option}: the host runner has no option table for ${name}, so it accepts operands only`)
  return args
}

function optionPaths(parsed: ParsedArguments): string[] {
  return parsed.options.filter((option) => option.arity === 'path' && option.value !== undefined).map((option) => option.value!)
}

/** Settings given to every git run: nothing the repository or the caller says can start a program. */
function gitSafetyConfig(falseProgram: string): string[] {
  const settings = [
    // The repository may belong to another uid than the one git runs as (the sandbox identity).
    'safe.directory=*',
    'core.fsmonitor=false',
    'core.hooksPath=/dev/null',
    'core.pager=cat',
    'protocol.allow=never',
    'log.showSignature=false',
    `gpg.program=${falseProgram}`,
    `gpg.openpgp.program=${falseProgram}`,
    `gpg.x509.program=${falseProgram}`,
    `gpg.ssh.program=${falseProgram}`
  ]
  return settings.flatMap((setting) => ['-c', setting])
}

async function admitGit(argv: string[], context: AdmissionContext): Promise<AdmittedCommand> {
  const subcommand = argv[1] ?? ''
  const table = gitSubcommandOptions[subcommand]
  if (!table) throw new CommandRefusedError(`git ${subcommand} is not supported on the host runner (status, diff, log and show are)`)
  const args = argv.slice(2)
  // Operands before `--` may be revisions or paths; both are checked as paths (a revision name
  // resolves inside the workspace, so only real paths out are refused).
  const parsed = parseArguments(`git ${subcommand}`, args, table)
  for (const path of [...parsed.operands, ...optionPaths(parsed)]) checkPathArgument(path, context.cwd, context.roots)
  const git = resolveHostProgram('git', context.roots)
  const safety = gitSafetyConfig(resolveHostProgram('false', context.roots))
  const repository = await admitWorkspaceRepository(context.cwd, context.roots, git)
  return {
    release: repository.remove,
    hostPaths: [repository.gitDir],
    argv: [git, '--no-pager', ...safety, subcommand, ...gitSubcommandSafety[subcommand]!, ...args],
    env: {
      GIT_DIR: repository.gitDir,
      GIT_WORK_TREE: repository.workTree,
      GIT_CEILING_DIRECTORIES: context.roots.join(':'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ATTR_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      GIT_PAGER: 'cat',
      GIT_OPTIONAL_LOCKS: '0',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_NO_LAZY_FETCH: '1',
      GIT_PROTOCOL_FROM_USER: '0'
    }
  }
}
