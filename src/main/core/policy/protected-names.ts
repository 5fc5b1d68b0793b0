import { segmentMatchesFolded } from './command-rules-glob'

/**
 * The one list of protected file names (SPEC §6.1, §6.3), shared by the file-write policy
 * (`file-risks.ts`) and the command rules (`command-rules-targets.ts`), so a file tool and a shell
 * command that write the same file raise the same flag:
 *
 * - `vcs_write`: anything under `.git/` or `.github/`, and `.gitmodules`, `.gitattributes` (they
 *   make git run programs: hooks, filters, workflows);
 * - `config_write`: environment files (`.env`, `.env.*`, `.envrc`, which direnv runs), shell
 *   start-up and exit files, package-manager and git credentials/configuration, `package.json`
 *   (its scripts run on `npm install`/`npm test`), and the system-wide shell profiles.
 *
 * Names compare ignoring case (a macOS workspace opens `.GIT/hooks` as `.git/hooks`), and a segment
 * still holding a glob (`.gi?`, `.g*`, `package.jso[n]`) counts as every name it can match.
 */
export type ProtectedKind = 'vcs_write' | 'config_write'

const vcsFolders = ['.git', '.github']
const vcsFiles = ['.gitmodules', '.gitattributes']
const configFiles = [
  ...['.env', '.env.local', '.env.production', '.env.development', '.envrc'],
  ...['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.zlogout', '.kshrc', '.mkshrc', '.cshrc', '.tcshrc', '.login', '.logout'],
  ...['.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.gitconfig', '.netrc', '.pgpass'],
  'package.json'
]
/** Protected files named by more than their last segment (suffixes of a path). */
const configPaths = [
  ['.config', 'fish', 'config.fish'],
  ['.config', 'git', 'config'],
  ['etc', 'profile'],
  ['etc', 'bash.bashrc'],
  ['etc', 'environment'],
  ['etc', 'profile.d', '*']
]

const matches = (segment: string, name: string) => name === '*' || segmentMatchesFolded(segment, name)

/**
 * What protected file a path names, given as its segments (already normalised; glob segments
 * allowed), with the protected name it matched; undefined for an ordinary file.
 */
export function protectedName(segments: readonly string[]): { kind: ProtectedKind; name: string } | undefined {
  for (const segment of segments) {
    const name = vcsFolders.find((folder) => matches(segment, folder))
    if (name) return { kind: 'vcs_write', name: `${name}/` }
  }
  const last = segments[segments.length - 1]
  if (last === undefined) return undefined
  const vcsFile = vcsFiles.find((name) => matches(last, name))
  if (vcsFile) return { kind: 'vcs_write', name: vcsFile }
  const config = configFiles.find((name) => matches(last, name)) ?? (/^\.env\..+$/i.test(last) ? '.env.*' : undefined)
  if (config) return { kind: 'config_write', name: config }
  for (const path of configPaths) {
    const tail = segments.slice(-path.length)
    if (tail.length === path.length && path.every((name, i) => matches(tail[i]!, name))) return { kind: 'config_write', name: path.join('/') }
  }
  return undefined
}
