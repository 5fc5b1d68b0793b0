import { execFile } from 'node:child_process'
import { CommandRefusedError } from './command-line'
import { hostProgramPath } from './host-programs'

/** Every key of a section is data (colours, advice switches): nothing there names a program or a file. */
const anyKey = 'any'
type KeyRule = readonly string[] | typeof anyKey

/**
 * Repository config keys the host runner accepts, by section, for `section.key` (`plain`) and
 * `section.<subsection>.key` (`named`). Everything else is refused, including keys git adds later.
 * Why an allowlist: git keeps adding keys that run programs (core.fsmonitor, gpg.ssh.program,
 * hook.*, ...) or read elsewhere (include*, extensions.partialClone, core.worktree); a denylist is
 * stale by construction, whereas a repository that inspection should read rarely needs more than this.
 */
const plain: Readonly<Record<string, KeyRule>> = {
  core: [
    'repositoryformatversion',
    'filemode',
    'bare',
    'logallrefupdates',
    'ignorecase',
    'precomposeunicode',
    'symlinks',
    'autocrlf',
    'eol',
    'safecrlf',
    'quotepath',
    'abbrev',
    'checkstat',
    'trustctime',
    'untrackedcache',
    'commitgraph',
    'multipackindex',
    'sparsecheckout',
    'sparsecheckoutcone',
    'whitespace',
    'compression',
    'loosecompression',
    'bigfilethreshold',
    'preloadindex',
    'splitindex',
    'warnambiguousrefs',
    'protecthfs',
    'protectntfs',
    'fscache',
    'longpaths',
    'hidedotfiles',
    'checkroundtripencoding',
    'filesreflocktimeout',
    'packedrefstimeout',
    'deltabasecachelimit',
    'packedgitlimit',
    'packedgitwindowsize'
  ],
  extensions: ['objectformat', 'preciousobjects'],
  user: ['name', 'email'],
  init: ['defaultbranch'],
  branch: ['autosetupmerge', 'autosetuprebase', 'sort'],
  diff: [
    'renames',
    'renamelimit',
    'algorithm',
    'mnemonicprefix',
    'noprefix',
    'relative',
    'statgraphwidth',
    'context',
    'interhunkcontext',
    'indentheuristic',
    'colormoved',
    'colormovedws',
    'suppressblankempty',
    'wserrorhighlight',
    'dirstat'
  ],
  log: ['abbrevcommit', 'date', 'decorate', 'follow', 'graphcolors', 'showroot', 'mailmap'],
  status: ['showuntrackedfiles', 'short', 'branch', 'relativepaths', 'aheadbehind', 'renames', 'renamelimit', 'showstash'],
  pull: ['rebase', 'ff'],
  push: ['default', 'followtags', 'autosetupremote'],
  fetch: ['prune', 'prunetags', 'writecommitgraph', 'parallel'],
  merge: ['ff', 'conflictstyle', 'log', 'renames', 'renamelimit', 'stat'],
  rebase: ['autosquash', 'autostash', 'updaterefs', 'stat', 'abbreviatecommands', 'missingcommitscheck'],
  i18n: ['commitencoding', 'logoutputencoding'],
  lfs: ['repositoryformatversion'],
  color: anyKey,
  advice: anyKey,
  column: anyKey
}
const named: Readonly<Record<string, KeyRule>> = {
  remote: ['url', 'pushurl', 'fetch', 'push', 'tagopt', 'prune', 'prunetags', 'mirror', 'skipdefaultupdate', 'skipfetchall'],
  branch: ['remote', 'pushremote', 'merge', 'rebase', 'description'],
  submodule: ['url', 'active', 'branch'],
  lfs: ['access', 'locksverify'],
  color: anyKey
}

/** True when a key (as `git config --list` prints it: section and name lower-cased) is on the allowlist. */
export function isDataKey(key: string): boolean {
  const first = key.indexOf('.')
  const last = key.lastIndexOf('.')
  if (first <= 0 || last === key.length - 1) return false
  const section = key.slice(0, first)
  const rule = first === last ? plain[section] : named[section]
  return rule === anyKey || (rule?.includes(key.slice(last + 1)) ?? false)
}

/**
 * Reads a repository config with git's own parser (`git config --list -z --no-includes`, so an
 * include is listed as a key and never followed) and refuses it when any key is off the allowlist.
 */
export async function refuseUnsafeGitConfig(gitProgram: string, configPath: string): Promise<void> {
  const listing = await listConfig(gitProgram, configPath)
  const keys = listing
    .split('\0')
    .filter((entry) => entry !== '')
    .map((entry) => entry.split('\n', 1)[0]!)
  const refused = [...new Set(keys.filter((key) => !isDataKey(key)))]
  if (refused.length > 0) {
    const shown = refused.slice(0, 8).join(', ') + (refused.length > 8 ? `, and ${refused.length - 8} more` : '')
    throw new CommandRefusedError(
      `this repository config can make git run programs or read outside the workspace: ${shown} ` +
        '(the host runner accepts only known data keys: core basics, remote/branch tracking, user, colours); inspect it in a sandbox instead'
    )
  }
}

function listConfig(gitProgram: string, configPath: string): Promise<string> {
  // cwd / and a ceiling of / : this git must not find (and read the format of) any repository.
  const env = { PATH: hostProgramPath, HOME: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CEILING_DIRECTORIES: '/', LANG: 'C' }
  return new Promise((resolve, reject) => {
    execFile(
      gitProgram,
      ['config', '--file', configPath, '--no-includes', '--list', '-z'],
      { cwd: '/', env, timeout: 10_000, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new CommandRefusedError(`git could not read the repository config: ${(stderr || error.message).trim().split('\n')[0]}`))
        else resolve(stdout)
      }
    )
  })
}
