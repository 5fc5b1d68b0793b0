import { appendFileSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import {
  commitRepo,
  indexEntryOutside,
  evilFilter,
  evilScript,
  evilSharedObject,
  filteredChange,
  put,
  secretText,
  signedCommitRepo,
  submoduleWithFilter,
  type Scene
} from './host-runner-fixtures'

/** What a case must end in: refused before anything runs, or run with this exit code and output. */
export type HostRunnerExpectation = { refused: RegExp } | { exitCode: number; stdoutContains?: string[]; stdoutNotContains?: string[] }

/** One attack on the host runner: the set-up a hostile workspace or caller makes, and the command. */
export type HostRunnerCase = {
  id: string
  attack: string
  command: string
  env?: (scene: Scene) => Record<string, string>
  setup?: (scene: Scene) => void
  expect: HostRunnerExpectation
  /** Held only by the read-only sandbox the runner uses where bubblewrap works (path checks cannot see it). */
  needsSandbox?: true
}

const linkToSecret = (name: string) => (s: Scene) => symlinkSync(s.secretFile, join(s.ws, name))
const linkToOutside = (name: string) => (s: Scene) => symlinkSync(s.outside, join(s.ws, name))

/** The corpus (SPEC testing §security corpus: the host runner's rows), one case per known hole. */
export const cases: HostRunnerCase[] = [
  // Found by an attack run after the argument checks landed: what a program opens on its own.
  {
    id: 'repo-index-dotdot-path',
    attack: 'a .git/index entry named ../outside/secret.txt makes git diff read and print a file outside',
    command: 'git diff',
    setup: indexEntryOutside,
    needsSandbox: true,
    expect: { exitCode: 0, stdoutNotContains: [secretText] }
  },
  // Caller environment: nothing it passes may choose the program, what it loads or what git reads.
  {
    id: 'env-path-workspace-bin',
    attack: 'PATH=<ws>/bin makes `ls` run <ws>/bin/ls',
    command: 'ls',
    setup: (s) => evilScript(s, join(s.ws, 'bin', 'ls')),
    env: (s) => ({ PATH: join(s.ws, 'bin') }),
    expect: { refused: /environment variable PATH is not accepted/ }
  },
  {
    id: 'env-ld-preload',
    attack: 'LD_PRELOAD=<ws>/evil.so loads attacker code into cat',
    command: 'cat a.txt',
    setup: (s) => {
      put(join(s.ws, 'a.txt'), 'a\n')
      evilSharedObject(s)
    },
    env: (s) => ({ LD_PRELOAD: join(s.ws, 'evil.so') }),
    expect: { refused: /environment variable LD_PRELOAD is not accepted/ }
  },
  {
    id: 'env-git-config-count',
    attack: 'GIT_CONFIG_COUNT/KEY/VALUE add a filter.*.clean program run by git diff',
    command: 'git diff',
    setup: (s) => filteredChange(s.ws),
    env: (s) => ({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'filter.evil.clean', GIT_CONFIG_VALUE_0: evilScript(s) }),
    expect: { refused: /environment variables? GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0, GIT_CONFIG_VALUE_0 (is|are) not accepted/ }
  },
  {
    id: 'env-git-config-global',
    attack: 'GIT_CONFIG_GLOBAL=<ws>/evil.gitconfig adds a clean filter',
    command: 'git status',
    setup: (s) => {
      filteredChange(s.ws)
      put(join(s.ws, 'evil.gitconfig'), evilFilter(s))
    },
    env: (s) => ({ GIT_CONFIG_GLOBAL: join(s.ws, 'evil.gitconfig') }),
    expect: { refused: /environment variable GIT_CONFIG_GLOBAL is not accepted/ }
  },
  {
    id: 'env-git-work-tree-outside',
    attack: 'GIT_WORK_TREE=<outside> makes git diff print a file outside',
    command: 'git diff',
    setup: (s) => commitRepo(s.ws, { 'secret.txt': 'placeholder\n' }),
    env: (s) => ({ GIT_WORK_TREE: s.outside }),
    expect: { refused: /environment variable GIT_WORK_TREE is not accepted/ }
  },
  {
    id: 'env-git-work-tree-etc',
    attack: 'GIT_WORK_TREE=/etc makes git diff print /etc/shadow',
    command: 'git diff',
    setup: (s) => commitRepo(s.ws, { shadow: 'placeholder\n' }),
    env: () => ({ GIT_WORK_TREE: '/etc' }),
    expect: { refused: /environment variable GIT_WORK_TREE is not accepted/ }
  },
  {
    id: 'env-git-dir-outside',
    attack: 'GIT_DIR=<outside repo> makes git log -p print its history',
    command: 'git log -p',
    setup: (s) => commitRepo(s.outside, {}),
    env: (s) => ({ GIT_DIR: join(s.outside, '.git') }),
    expect: { refused: /environment variable GIT_DIR is not accepted/ }
  },
  {
    id: 'env-home-gnupg',
    attack: 'HOME=<ws> points gpg and git at a hostile home',
    command: 'ls',
    env: (s) => ({ HOME: s.ws }),
    expect: { refused: /environment variable HOME is not accepted/ }
  },
  // Repository content: a hostile workspace's .git must not run programs or read outside.
  {
    id: 'repo-gpg-program',
    attack: '[gpg] program= with log.showSignature runs a program on git log',
    command: 'git log',
    setup: (s) => {
      signedCommitRepo(s.ws)
      put(join(s.ws, '.git', 'config'), `[gpg]\n\tprogram = ${evilScript(s)}\n[log]\n\tshowSignature = true\n`)
    },
    expect: { refused: /repository config can make git run programs.*gpg\.program/ }
  },
  {
    id: 'repo-hostile-gnupg-home',
    attack: 'git log --show-signature runs gpg with <ws>/.gnupg/gpg.conf naming a dirmngr program',
    command: 'git log --show-signature',
    setup: (s) => {
      signedCommitRepo(s.ws)
      put(join(s.ws, '.gnupg', 'gpg.conf'), `auto-key-retrieve\ndirmngr-program ${evilScript(s)}\n`)
    },
    expect: { refused: /git log --show-signature is not allowed/ }
  },
  {
    id: 'repo-hostile-gnupg-home-format',
    attack: 'git log --format=%G? verifies signatures: gpg must not run with the workspace as its home',
    command: 'git log --format=%G?%s',
    setup: (s) => {
      signedCommitRepo(s.ws)
      put(join(s.ws, '.gnupg', 'gpg.conf'), `auto-key-retrieve\ndirmngr-program ${evilScript(s)}\n`)
    },
    expect: { exitCode: 0, stdoutContains: ['signed'] }
  },
  {
    id: 'repo-dotgit-file',
    attack: 'a .git file (gitdir: realgit) skips the config check; its filter runs on git status',
    command: 'git status',
    setup: (s) => {
      filteredChange(s.ws)
      renameSync(join(s.ws, '.git'), join(s.ws, 'realgit'))
      put(join(s.ws, '.git'), 'gitdir: realgit\n')
      appendFileSync(join(s.ws, 'realgit', 'config'), evilFilter(s))
    },
    expect: { refused: /\.git is a file/ }
  },
  {
    id: 'repo-above-workspace',
    attack: 'git discovers a repository above the workspace and runs its filter',
    command: 'git status',
    setup: (s) => {
      filteredChange(s.base)
      put(join(s.base, '.git', 'config'), evilFilter(s))
    },
    expect: { refused: /no git repository inside the workspace/ }
  },
  {
    id: 'repo-partial-clone-fetch',
    attack: 'extensions.partialClone with an outside promisor remote lazily fetches a missing commit',
    command: 'git log -p leak',
    setup: (s) => {
      const outsideHead = commitRepo(s.outside, { 'secret.txt': `${secretText}\n` })
      commitRepo(s.ws, { 'a.txt': 'a\n' })
      put(join(s.ws, '.git', 'refs', 'heads', 'leak'), `${outsideHead}\n`)
      put(
        join(s.ws, '.git', 'config'),
        `[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = origin\n[remote "origin"]\n\turl = ${s.outside}\n\tpromisor = true\n`
      )
    },
    expect: { refused: /repository config can make git run programs or read outside the workspace.*extensions\.partialclone/ }
  },
  {
    id: 'repo-commondir',
    attack: '.git/commondir points at an outside repository, whose refs and objects git log -p prints',
    command: 'git log -p',
    setup: (s) => {
      commitRepo(s.outside, { 'secret.txt': `${secretText}\n` })
      commitRepo(s.ws, {})
      put(join(s.ws, '.git', 'commondir'), join(s.outside, '.git'))
    },
    expect: { refused: /commondir/ }
  },
  {
    id: 'repo-alternates',
    attack: 'objects/info/alternates borrows an outside object store; a ref names an outside commit',
    command: 'git log -p leak',
    setup: (s) => {
      const outsideHead = commitRepo(s.outside, { 'secret.txt': `${secretText}\n` })
      commitRepo(s.ws, {})
      put(join(s.ws, '.git', 'objects', 'info', 'alternates'), `${join(s.outside, '.git', 'objects')}\n`)
      put(join(s.ws, '.git', 'refs', 'heads', 'leak'), `${outsideHead}\n`)
    },
    expect: { refused: /alternates/ }
  },
  {
    id: 'repo-dotgit-symlink',
    attack: '<ws>/.git is a symlink to an outside repository',
    command: 'git log -p',
    setup: (s) => {
      commitRepo(s.outside, { 'secret.txt': `${secretText}\n` })
      symlinkSync(join(s.outside, '.git'), join(s.ws, '.git'))
    },
    expect: { refused: /\.git is a symbolic link/ }
  },
  {
    id: 'repo-objects-symlink',
    attack: '.git/objects is a symlink to an outside object store; a ref names an outside commit',
    command: 'git log -p leak',
    setup: (s) => {
      const outsideHead = commitRepo(s.outside, { 'secret.txt': `${secretText}\n` })
      commitRepo(s.ws, {})
      put(join(s.ws, '.git', 'refs', 'heads', 'leak'), `${outsideHead}\n`)
      rmSync(join(s.ws, '.git', 'objects'), { recursive: true })
      symlinkSync(join(s.outside, '.git', 'objects'), join(s.ws, '.git', 'objects'))
    },
    expect: { refused: /symbolic link .* outside the workspace/ }
  },
  {
    id: 'repo-submodule-filter',
    attack: 'git status recurses into a submodule whose own config (.git/modules/sub/config) has a clean filter',
    command: 'git status --short',
    setup: submoduleWithFilter,
    expect: { exitCode: 0, stdoutNotContains: ['sub'] }
  },
  {
    id: 'repo-include-outside',
    attack: '[include] path= pulls in an outside config file with a filter',
    command: 'git status',
    setup: (s) => {
      filteredChange(s.ws)
      put(join(s.outside, 'evil.cfg'), evilFilter(s))
      put(join(s.ws, '.git', 'config'), `[include]\n\tpath = ${join(s.outside, 'evil.cfg')}\n`)
    },
    expect: { refused: /repository config can make git run programs.*include\.path/ }
  },
  // Arguments: every path operand is checked, wherever it sits; file-list options are refused.
  {
    id: 'args-cat-after-dashdash',
    attack: 'ln -s secret ./-x; cat -- -x',
    command: 'cat -- -x',
    setup: linkToSecret('-x'),
    expect: { refused: /-x is outside the workspace/ }
  },
  {
    id: 'args-ls-after-dashdash',
    attack: 'ln -s outside ./-d; ls -- -d',
    command: 'ls -- -d',
    setup: linkToOutside('-d'),
    expect: { refused: /-d is outside the workspace/ }
  },
  {
    id: 'args-grep-after-dashdash',
    attack: 'ln -s outside ./-d; grep -r X -- -d',
    command: `grep -r ${secretText} -- -d`,
    setup: linkToOutside('-d'),
    expect: { refused: /-d is outside the workspace/ }
  },
  {
    id: 'args-link-then-dotdot',
    attack: 'ln -s outside/sub ./up; cat up/../secret.txt (the kernel follows up before ..)',
    command: 'cat up/../secret.txt',
    setup: (s) => {
      mkdirSync(join(s.outside, 'sub'))
      symlinkSync(join(s.outside, 'sub'), join(s.ws, 'up'))
    },
    expect: { refused: /up\/\.\.\/secret\.txt is outside the workspace/ }
  },
  {
    id: 'args-head-option-like-operand',
    attack: 'ln -s secret ./-x; head -- -x',
    command: 'head -n 1 -- -x',
    setup: linkToSecret('-x'),
    expect: { refused: /-x is outside the workspace/ }
  },
  {
    id: 'args-find-files0-from',
    attack: 'find -files0-from reads starting points from a file',
    command: 'find -files0-from list',
    setup: (s) => put(join(s.ws, 'list'), `${s.outside}\0`),
    expect: { refused: /find -files0-from is not allowed/ }
  },
  {
    id: 'args-wc-files0-from',
    attack: 'wc --files0-from=list counts outside files',
    command: 'wc --files0-from=list',
    setup: (s) => put(join(s.ws, 'list'), `${s.secretFile}\0`),
    expect: { refused: /wc --files0-from=list is not allowed/ }
  },
  {
    id: 'args-wc-abbreviated-option',
    attack: 'GNU getopt takes --files0 as --files0-from',
    command: 'wc --files0=list',
    setup: (s) => put(join(s.ws, 'list'), `${s.secretFile}\0`),
    expect: { refused: /wc --files0 is not an option the host runner knows/ }
  },
  {
    id: 'args-grep-glued-pattern-file',
    attack: 'grep -fLINK reads a pattern file outside (a match oracle)',
    command: 'grep -o -flink words.txt',
    setup: (s) => {
      linkToSecret('link')(s)
      put(join(s.ws, 'words.txt'), `guess ${secretText} guess\n`)
    },
    expect: { refused: /grep -f is not allowed/ }
  },
  {
    id: 'args-rg-ignore-file',
    attack: 'rg --ignore-file reads a file list',
    command: 'rg --ignore-file ignore.txt x',
    setup: (s) => put(join(s.ws, 'ignore.txt'), '*\n'),
    expect: { refused: /rg --ignore-file is not allowed/ }
  },
  {
    id: 'args-git-diff-no-index',
    attack: 'git diff --no-index -- -x y diffs an option-named symlink to a secret',
    command: 'git diff --no-index -- -x empty',
    setup: (s) => {
      linkToSecret('-x')(s)
      put(join(s.ws, 'empty'), '')
    },
    expect: { refused: /git diff --no-index is not allowed/ }
  },
  // Controls: harmless requests still run.
  {
    id: 'control-cat-option-named-file',
    attack: 'an option-named regular file inside is still readable',
    command: 'cat -- -notes',
    setup: (s) => put(join(s.ws, '-notes'), 'inside\n'),
    expect: { exitCode: 0, stdoutContains: ['inside'] }
  },
  {
    id: 'control-harmless-env',
    attack: 'TZ and LC_ALL are accepted',
    command: 'ls',
    env: () => ({ TZ: 'UTC', LC_ALL: 'C' }),
    setup: (s) => put(join(s.ws, 'a.txt'), ''),
    expect: { exitCode: 0, stdoutContains: ['a.txt'] }
  }
]
