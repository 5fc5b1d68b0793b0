/**
 * The environment that lets git inside a sandbox work in the agent's own workspace (issue 26).
 *
 * When Airlock runs as root, a workspace root is `root:<sandbox gid>` (see `claimWorkspace`) and
 * sandboxed code runs as the dedicated uid, so git refuses a repository at the root as of
 * "dubious ownership". git honours `safe.directory` only from system, global or command-line
 * configuration, never from the repository's own; `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n` is the
 * command-line kind. Each workspace root is named exactly — never `*`, never the host's global
 * configuration — so nothing beyond those directories is trusted. Repositories the sandbox made
 * below a root are its own uid's and need nothing. What a repository's config then makes git run
 * (hooks, fsmonitor, a pager) runs inside the same sandbox, as the sandbox uid.
 *
 * A command can still set its own `GIT_CONFIG_*` (it runs in the sandbox; it can only affect itself).
 */
export function gitSafeDirectoryEnv(roots: readonly string[]): Record<string, string> {
  const unique = [...new Set(roots)]
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(unique.length) }
  unique.forEach((root, index) => {
    env[`GIT_CONFIG_KEY_${index}`] = 'safe.directory'
    env[`GIT_CONFIG_VALUE_${index}`] = root
  })
  return unique.length > 0 ? env : {}
}
