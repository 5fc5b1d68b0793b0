import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { isInside } from '../process/workspace-paths'
import { CommandRefusedError } from './command-line'

/** The host runner's default allowlist: read-only inspection (SPEC §4). */
export const defaultAllowedPrefixes = ['pwd', 'ls', 'cat', 'head', 'tail', 'wc', 'find', 'grep', 'rg', 'git status', 'git diff', 'git log', 'git show']

/** Options that make an allowed program run other programs, write files or follow links out. */
const refusedOptions: Record<string, RegExp> = {
  find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls|L|follow)$/,
  rg: /^(--pre|--pre=.*|--hostname-bin.*|-z|--search-zip|-L|--follow)$/,
  grep: /^(-R|--dereference-recursive)$/,
  ls: /^(-L|--dereference)$/,
  git: /^(--output.*|--ext-diff|--textconv|--exec-path.*|--git-dir.*|--work-tree.*|--upload-pack.*|--config-env.*)$/
}

/** Repository config that would make git run a program on status/diff/log/show. */
const riskyGitConfig = /^\s*\[\s*(filter|include|includeIf|diff\s+"[^"]*"|alias)\b|\b(fsmonitor|textconv|command|pager|hookspath|sshcommand|askpass|editor|external)\s*=/im

/** A command the host runner may run: argv and the environment additions it needs. */
export type AdmittedCommand = { argv: string[]; env: Record<string, string> }

/**
 * Admits an argv for the host runner: its leading words must match an allowed prefix, no option
 * may turn it into a writer or launcher, and every argument that names a path must resolve
 * (symlinks followed) inside the workspace roots. git runs with system/global config off, hooks
 * and fsmonitor off, no pager and no external diff or textconv programs.
 */
export function admitCommand(argv: string[], options: { allowedPrefixes: readonly string[]; cwd: string; roots: readonly string[] }): AdmittedCommand {
  const prefix = options.allowedPrefixes.map((p) => p.trim().split(/\s+/)).find((words) => words.every((word, i) => argv[i] === word))
  if (!prefix) {
    throw new CommandRefusedError(`${argv[0]} is not on this runner's allowlist (${options.allowedPrefixes.join(', ')})`)
  }
  const program = basename(argv[0]!)
  const refused = refusedOptions[program]
  for (const arg of argv.slice(1)) {
    if (refused?.test(arg)) throw new CommandRefusedError(`${program} ${arg} is not allowed on the host runner`)
    checkPathArgument(arg, options.cwd, options.roots)
  }
  if (program !== 'git') return { argv, env: {} }
  refuseRiskyRepositoryConfig(options.cwd, options.roots)
  const subcommand = argv[1]!
  const safety = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '--no-pager']
  const noPrograms = subcommand === 'status' ? [] : ['--no-ext-diff', '--no-textconv']
  return {
    argv: ['git', ...safety, subcommand, ...noPrograms, ...argv.slice(2)],
    env: { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0' }
  }
}

/** Refuses an argument whose path (plain, after `=`, or glued to a short option) leaves the workspace. */
function checkPathArgument(arg: string, cwd: string, roots: readonly string[]): void {
  const candidate = arg.startsWith('-') ? (arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : arg.includes('/') ? arg.slice(arg.indexOf('/')) : undefined) : arg
  if (candidate === undefined || candidate === '') return
  if (candidate.startsWith('~')) throw new CommandRefusedError(`${arg}: home-relative paths are outside the workspace`)
  const real = realPathOrParent(resolve(cwd, candidate))
  if (!roots.some((root) => isInside(root, real))) throw new CommandRefusedError(`${arg} is outside the workspace`)
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
function realPathOrParent(path: string): string {
  let current = path
  const rest: string[] = []
  while (!existsSync(current)) {
    const parent = dirname(current)
    if (parent === current) break
    rest.unshift(basename(current))
    current = parent
  }
  try {
    return join(realpathSync(current), ...rest)
  } catch {
    return path
  }
}

function refuseRiskyRepositoryConfig(cwd: string, roots: readonly string[]): void {
  for (let dir = cwd; roots.some((root) => isInside(root, dir)); dir = dirname(dir)) {
    const config = join(dir, '.git', 'config')
    if (existsSync(config)) {
      if (riskyGitConfig.test(readFileSync(config, 'utf8'))) {
        throw new CommandRefusedError('this repository config can make git run programs (filters, fsmonitor, pagers, includes); inspect it in a sandbox instead')
      }
      return
    }
    if (dirname(dir) === dir) return
  }
}
