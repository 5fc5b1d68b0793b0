import { firstOperand, splitArgs, type CommandView } from './command-rules-words'

/**
 * Git as the rules read it: the subcommand after git's global options (`git -C dir -c k=v push`),
 * with `-c alias.NAME=VALUE` resolved (`git -c alias.p=push p` is `git push`); whether `git config`
 * sets a value; and configuration that makes git run a program (`command.dynamic`): `-c KEY=VALUE`
 * and `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (and `GIT_CONFIG_PARAMETERS`,
 * `GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`...) for keys such as `core.fsmonitor`, `core.pager`,
 * `core.sshCommand`, `core.hooksPath`, `diff.external`, `*.textconv`, `filter.*.smudge`, `alias.*`
 * with a `!` value. Harmless values (`true`, `cat`, `less`, an empty one) are left alone, so
 * `GIT_EDITOR=true git rebase --continue` still runs. The rule for keys is general: any key whose
 * last segment ends in `cmd` or `command` (`mergetool.x.cmd`, `core.alternateRefsCommand`,
 * `sendemail.sendmailcmd`), `submodule.*.update` with a `!` value, any `*.textconv`, `filter.*`,
 * `*.program`, mergetool/difftool and include paths, and the named keys above. `--config-env KEY=VAR` (both spellings) is read as `-c KEY=$VAR`, with VAR
 * taken from the command's own assignments; an alias given that way always asks (its value may
 * come from an `export` earlier in the line or from outside it).
 */

const globalValued = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--exec-path',
  '--super-prefix',
  '--list-cmds',
  '--attr-source'
])

/** Keys whose value git runs as a command (or, for `core.hooksPath`, a folder of programs). */
const codeKey =
  /^(?:.*(?:cmd|command)|.+\.textconv|filter\..+|.+\.program|(?:merge|diff)tool\..+\.path|include\.path|includeif\..+\.path|init\.templatedir|sendemail\.smtpserver|core\.(?:fsmonitor|pager|editor|sshcommand|hookspath|askpass|gitproxy)|diff\.external|diff\..+\.(?:textconv|command)|merge\..+\.driver|filter\..+\.(?:clean|smudge|process)|credential(?:\..+)?\.helper|gpg(?:\..+)?\.program|sequence\.editor|uploadpack\.packobjectshook|pager\..+|interactive\.difffilter|remote\..+\.(?:uploadpack|receivepack|vcs)|protocol\..+\.allow|ssh\.variant)$/
const codeEnv = new Set([
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_ASKPASS',
  'GIT_PROXY_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR'
])
/** Values that run nothing worth asking about. */
const harmless = /^(?:|true|false|:|cat|less|less -R|more|head|vi|vim|nano)$/

type ConfigPair = { key: string; value: string; fromEnv?: true }

/** `-c KEY=VALUE` and `--config-env KEY=VAR` pairs given to git before its subcommand, keys lowercased as git reads them. */
function configPairs(view: CommandView, env: ReadonlyMap<string, string> = ownEnv(view)): ConfigPair[] {
  const pairs: ConfigPair[] = []
  if (view.program !== 'git') return pairs
  for (let i = 0; i < view.args.length; i++) {
    const arg = view.args[i]!
    if (!arg.startsWith('-')) break
    const fromEnv = arg === '--config-env' ? view.args[++i] : arg.startsWith('--config-env=') ? arg.slice('--config-env='.length) : undefined
    const text = fromEnv ?? (arg === '-c' ? view.args[++i] : arg.startsWith('-c') ? arg.slice(2) : undefined)
    if (text === undefined) {
      if (globalValued.has(arg)) i++
      continue
    }
    const equals = text.indexOf('=')
    const key = (equals < 0 ? text : text.slice(0, equals)).toLowerCase()
    if (fromEnv === undefined) pairs.push({ key, value: equals < 0 ? 'true' : text.slice(equals + 1) })
    else {
      const name = equals < 0 ? '' : text.slice(equals + 1)
      pairs.push({ key, value: env.get(name) ?? `$${name}`, fromEnv: true })
    }
  }
  return pairs
}

const ownEnv = (view: CommandView) => new Map(view.command.assignments.map((a) => [a.name, a.value.value]))

/** Configuration given through the environment: `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n` and `GIT_CONFIG_PARAMETERS`. */
function envPairs(assignments: readonly { name: string; value: string }[]): { key: string; value: string }[] {
  const env = new Map(assignments.map((a) => [a.name, a.value]))
  const pairs: { key: string; value: string }[] = []
  const count = Number.parseInt(env.get('GIT_CONFIG_COUNT') ?? '0', 10)
  for (let i = 0; i < Math.min(Number.isFinite(count) ? count : 0, 1000); i++) {
    const key = env.get(`GIT_CONFIG_KEY_${i}`)
    if (key !== undefined) pairs.push({ key: key.toLowerCase(), value: env.get(`GIT_CONFIG_VALUE_${i}`) ?? '' })
  }
  // `GIT_CONFIG_PARAMETERS="'alias.p'='push' 'k'='v'"`: git's own quoting of `-c` pairs.
  for (const m of (env.get('GIT_CONFIG_PARAMETERS') ?? '').matchAll(/'([^']*)'(?:='([^']*)')?/g)) {
    const [key, value] = m[2] === undefined ? (m[1] ?? '').split(/=(.*)/s, 2) : [m[1], m[2]]
    pairs.push({ key: (key ?? '').toLowerCase(), value: value ?? 'true' })
  }
  return pairs
}

/**
 * Git's subcommand and the arguments after it, skipping global options and resolving aliases set
 * by `-c alias.*` or the environment. Git's exec-path programs are their subcommand
 * (`/usr/lib/git-core/git-push` is `git push`).
 */
export function gitSubcommand(view: CommandView): { name: string; args: string[] } | undefined {
  if (/^git-[a-z][a-z0-9-]*$/.test(view.program)) return { name: view.program.slice(4), args: view.args }
  if (view.program !== 'git') return undefined
  const sub = firstOperand(view.args, globalValued)
  if (!sub) return undefined
  const rest = view.args.slice(sub.index + 1)
  const pairs = [...configPairs(view), ...envPairs(view.command.assignments.map((a) => ({ name: a.name, value: a.value.value })))]
  const alias = pairs.find((p) => p.key === `alias.${sub.value.toLowerCase()}` && !p.value.startsWith('!') && !p.value.startsWith('$'))
  if (alias) {
    const words = alias.value
      .trim()
      .split(/\s+/)
      .filter((w) => w !== '')
    if (words.length > 0) return { name: words[0]!, args: [...words.slice(1), ...rest] }
  }
  return { name: sub.value, args: rest }
}

/** `git` and its subcommand with the global options taken out (`git -C . push` → `git push`), for the profile's lists. */
export function gitListArgv(view: CommandView): string[] | undefined {
  const git = gitSubcommand(view)
  return git ? ['git', git.name, ...git.args] : undefined
}

/** Configuration that makes this git command run a program: `{ key, value }` with the code in `value`. */
export function gitCodeConfig(view: CommandView, assignments: readonly { name: string; value: string }[]): { key: string; value: string }[] {
  if (view.program !== 'git' && !view.program.startsWith('git-')) return []
  const env = new Map(assignments.map((a) => [a.name, a.value]))
  const pairs: ConfigPair[] = [...configPairs(view, env), ...envPairs(assignments)]
  for (const [name, value] of env) {
    if (codeEnv.has(name) || name === 'GIT_CONFIG_PARAMETERS') pairs.push({ key: name, value })
  }
  return pairs.filter(
    (p) =>
      (p.key.startsWith('alias.') || /^submodule\..+\.update$/.test(p.key)
        ? p.fromEnv || p.value.trimStart().startsWith('!')
        : codeKey.test(p.key) || p.key.startsWith('GIT_')) && !harmless.test(p.value.trim())
  )
}

/** True when `git config` sets, adds, removes or edits a value (not `--get`, `--list`, `-l`). */
export function setsGitConfig(view: CommandView): boolean {
  const git = gitSubcommand(view)
  if (git?.name !== 'config') return false
  const { options, operands } = splitArgs(git.args, new Set(['-f', '--file', '--blob', '--type', '--default']))
  if (options.some((o) => /^--(?:get|get-all|get-regexp|get-urlmatch|list|show-origin|show-scope|name-only)$/.test(o) || o === '-l')) return false
  if (options.some((o) => /^--(?:unset|unset-all|add|replace-all|rename-section|remove-section|edit)$/.test(o) || o === '-e')) return true
  if (['set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(operands[0] ?? '')) return true
  if (['get', 'list'].includes(operands[0] ?? '')) return false
  return operands.length >= 2
}

/**
 * Why this git command destroys work that has no other copy, or undefined: `reset --hard`
 * (and `--merge`), `checkout`/`restore` of paths over local changes (`checkout -- .`,
 * `checkout .`, `restore .`, `restore --worktree`; `restore --staged` alone only unstages),
 * `checkout -f`/`switch --discard-changes`, `stash drop`/`clear`, `branch -D`, a forced push
 * (`--force`, `-f`, `--force-with-lease`, `+refspec`) or a deleting one (`--delete`, `:branch`).
 * `git clean -f` is a deletion by its paths (`deletionTargets`).
 */
export function gitDiscards(view: CommandView): string | undefined {
  const git = gitSubcommand(view)
  if (!git) return undefined
  const { options, operands } = splitArgs(
    git.args,
    new Set(['-s', '--source', '-b', '-B', '--orphan', '-m', '--message', '-o', '--push-option', '--repo', '--receive-pack', '--exec'])
  )
  const dashDash = git.args.indexOf('--')
  const has = (...names: string[]) =>
    options.some((o) => names.some((n) => (n.startsWith('--') ? o === n || o.startsWith(`${n}=`) : /^-[a-zA-Z]+$/.test(o) && o.includes(n.slice(1)))))
  const what = `git ${git.name}`
  switch (git.name) {
    case 'reset':
      return has('--hard', '--merge') ? `${what} --hard discards uncommitted changes` : undefined
    case 'checkout':
      if (has('-f', '--force')) return `${what} --force discards local changes`
      if (dashDash >= 0 && dashDash < git.args.length - 1) return `${what} -- ${git.args.slice(dashDash + 1).join(' ')} overwrites local changes to those paths`
      return operands.some((o) => o === '.' || o.startsWith('./') || o.startsWith(':/') || o.includes('*'))
        ? `${what} ${operands.join(' ')} overwrites local changes to those paths`
        : undefined
    case 'restore':
      if (has('--staged', '-S') && !has('--worktree', '-W')) return undefined
      return operands.length > 0 || has('--worktree', '-W') ? `${what} ${git.args.join(' ')} overwrites local changes` : undefined
    case 'switch':
      return has('--discard-changes', '-f', '--force') ? `${what} --discard-changes discards local changes` : undefined
    case 'stash':
      return operands[0] === 'drop' || operands[0] === 'clear' ? `${what} ${operands[0]} deletes stashed changes` : undefined
    case 'branch':
      return has('-D') || (has('-d', '--delete') && has('-f', '--force')) ? `${what} -D deletes a branch whether or not it was merged` : undefined
    case 'push':
      if (has('-f', '--force', '--force-with-lease', '--force-if-includes', '--mirror')) return `${what} --force overwrites the remote's history`
      if (has('-d', '--delete') || operands.slice(1).some((o) => o.startsWith(':') || o.startsWith('+')))
        return `${what} ${operands.join(' ')} deletes or overwrites remote branches`
      return undefined
    default:
      return undefined
  }
}
