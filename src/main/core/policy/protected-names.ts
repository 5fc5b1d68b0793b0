import { shellStartupFiles } from '@shared/protected-paths'
import { segmentMatchesFolded } from './command-rules-glob'

/**
 * The one list of protected file names (SPEC §6.1, §6.3), shared by the file-write policy
 * (`file-risks.ts`) and the command rules (`command-rules-targets.ts`), so a file tool and a shell
 * command that write the same file raise the same flag:
 *
 * - `vcs_write`: anything under `.git/`, `.github/` or `.husky/`, and `.gitmodules`,
 *   `.gitattributes`, CI and pre-commit configs (they make git or CI run programs: hooks,
 *   filters, workflows);
 * - `config_write`: environment files (`.env`, `.env.*`, `.envrc`, which direnv runs), shell
 *   start-up and exit files, package-manager and git credentials/configuration, `package.json`
 *   (its scripts run on `npm install`/`npm test`), Makefiles, Python's `usercustomize.py`,
 *   `sitecustomize.py` and `.pth` files, editor, agent-client and ssh folders (`.vscode/`,
 *   `.idea/`, `.claude/`, `.cursor/`, `.ssh/`, `.mcp.json`), and the system-wide shell profiles.
 *
 * Names compare ignoring case (a macOS workspace opens `.GIT/hooks` as `.git/hooks`), and a segment
 * still holding a glob (`.gi?`, `.g*`, `package.jso[n]`) counts as every name it can match.
 */
export type ProtectedKind = 'vcs_write' | 'config_write'

const vcsFolders = ['.git', '.github', '.husky']
const vcsFiles = ['.gitmodules', '.gitattributes', '.gitlab-ci.yml', '.pre-commit-config.yaml']
/** Folders whose files tools run later: editor tasks, agent clients' settings and hooks, ssh keys and config. */
const configFolders = ['.vscode', '.idea', '.claude', '.cursor', '.ssh']
const configFiles = [
  ...['.env', '.env.local', '.env.production', '.env.development', '.envrc'],
  ...[...shellStartupFiles, '.cshrc', '.tcshrc', '.login', '.logout'],
  ...['.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.gitconfig', '.netrc', '.pgpass'],
  ...['.mcp.json', 'usercustomize.py', 'sitecustomize.py', 'Makefile', 'makefile', 'GNUmakefile'],
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
  for (const segment of segments) {
    const name = configFolders.find((folder) => matches(segment, folder))
    if (name) return { kind: 'config_write', name: `${name}/` }
  }
  const last = segments[segments.length - 1]
  if (last === undefined) return undefined
  // Python runs every `.pth` file of a site directory at start-up; a Makefile includes `*.mk` files.
  if (/\.pth$/i.test(last)) return { kind: 'config_write', name: '*.pth' }
  if (/\.mk$/i.test(last)) return { kind: 'config_write', name: '*.mk' }
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
