import { accessSync, constants, lstatSync, realpathSync, type Stats } from 'node:fs'
import { dirname, parse, sep } from 'node:path'

/**
 * Whether a home directory is Airlock's own to trust: its database holds the policy, the agents'
 * token hashes and the approval queue, so whoever can replace the home — or any folder or link
 * on the way to it — can grant themselves what the operator never approved. The check, like
 * OpenSSH's StrictModes for `~/.ssh`:
 *
 * - every folder on the way (as given, and on its real path when a link leads elsewhere) and every
 *   link is owned by root or by the user running Airlock;
 * - no such folder is writable by anyone else unless it is sticky (`/tmp`, where only an entry's
 *   owner may rename it): not by others, and not by its group unless that group is the user's own
 *   primary group (user-private groups, `umask 002`);
 * - the home itself, when it exists, is a folder owned by exactly this user (as root: by root),
 *   with the same write rule, on a filesystem that is not read-only.
 *
 * A symbolic link in the path is accepted when it passes the owner rule (a dotfiles manager's
 * `~/.airlock`, macOS's `/var`); one another user owns is refused. Returns the problem in words
 * with its fix, or `undefined`. Without POSIX ids (Windows) nothing is checked: the home's ACLs
 * are the user profile's (documented in the README).
 */
export function homeSafetyProblem(home: string): string | undefined {
  const me = process.getuid?.()
  if (me === undefined) return undefined
  const myGroup = process.getgid?.()
  const owner = (stat: Stats) => stat.uid === 0 || stat.uid === me
  // Sticky (`/tmp`): only an entry's owner may rename or remove it, whoever else may write the folder.
  const writableByOthers = (stat: Stats) => (stat.mode & 0o1000) === 0 && ((stat.mode & 0o002) !== 0 || ((stat.mode & 0o020) !== 0 && stat.gid !== myGroup))
  const unsafeEntry = (path: string, stat: Stats): string | undefined => {
    if (!owner(stat)) return `${path} belongs to uid ${stat.uid}, not to root or you (uid ${me}): that user could swap the Airlock home for their own`
    if (stat.isDirectory() && writableByOthers(stat))
      return `${path} is writable by other users (mode ${(stat.mode & 0o7777).toString(8)}): they could swap the Airlock home for their own`
    return undefined
  }
  const existing = deepestExisting(home)
  // The home itself, when it exists, is checked below with the stricter rule (this user's, exactly).
  const above = (path: string) => (existing === home ? prefixes(path).slice(0, -1) : prefixes(path))
  for (const path of [...above(existing), ...above(realpathSync(existing))]) {
    const problem = unsafeEntry(path, lstatSync(path))
    if (problem) return `${problem}. Choose a home whose folders only you and root can change (--home or AIRLOCK_HOME), or fix the owner or mode of ${path}.`
  }
  if (existing !== home) return undefined
  const stat = lstatSync(realpathSync(home))
  if (!stat.isDirectory()) return `${home} is not a folder. Choose a folder for the Airlock home (--home or AIRLOCK_HOME).`
  if (stat.uid !== me)
    return `${home} belongs to uid ${stat.uid}, not to you (uid ${me}). Use a home of your own (--home or AIRLOCK_HOME), or chown it to yourself.`
  if (writableByOthers(stat)) return `${home} is writable by other users (mode ${(stat.mode & 0o7777).toString(8)}). Fix it with chmod 711 ${home}.`
  try {
    accessSync(home, constants.W_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'EROFS'
      ? `${home} is on a read-only filesystem. Choose a writable home (--home or AIRLOCK_HOME).`
      : `${home} is not writable by you (${code}). Choose a writable home (--home or AIRLOCK_HOME).`
  }
  return undefined
}

/** The path itself when it exists, else its nearest existing ancestor (what mkdir -p would start from). */
function deepestExisting(path: string): string {
  let current = path
  for (;;) {
    try {
      lstatSync(current)
      return current
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error
      const parent = dirname(current)
      if (parent === current) return current
      current = parent
    }
  }
}

/** `/a/b/c` → `/`, `/a`, `/a/b`, `/a/b/c`. */
function prefixes(path: string): string[] {
  const { root } = parse(path)
  const parts = path
    .slice(root.length)
    .split(sep)
    .filter((part) => part.length > 0)
  return [root, ...parts.map((_, index) => root + parts.slice(0, index + 1).join(sep))]
}
