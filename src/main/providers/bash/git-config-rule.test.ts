import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { refuseUnsafeGitConfig } from './git-config-rule'
import { resolveHostProgram } from './host-programs'

let dir: ReturnType<typeof makeTempDir>
let git: string
beforeAll(() => {
  dir = makeTempDir('git-config-rule-')
  git = resolveHostProgram('git', [])
})
afterAll(() => dir.remove())

const check = (text: string) => {
  const path = join(dir.path, `config-${Math.random().toString(36).slice(2)}`)
  writeFileSync(path, text)
  return refuseUnsafeGitConfig(git, path)
}

describe('repository config rule (git parses, an allowlist decides)', () => {
  it('accepts what clone and init write', async () => {
    await expect(
      check(
        '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n' +
          '[remote "origin"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n' +
          '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n[lfs]\n\trepositoryformatversion = 0\n[color "diff"]\n\tmeta = yellow\n'
      )
    ).resolves.toBeUndefined()
  })

  // Spellings a regex over the text misses; git's own parser does not.
  const refused: [string, string, RegExp][] = [
    ['a program key under another case', '[GPG]\n\tProgram = ./evil\n', /gpg\.program/],
    ['the old dotted subsection syntax', '[filter.evil]\n\tclean = ./evil\n', /filter\.evil\.clean/],
    ['a value continued over lines', '[core]\n\tfsmonitor = \\\n./evil\n', /core\.fsmonitor/],
    ['section and key on one line', '[core] sshCommand = ./evil\n', /core\.sshcommand/],
    ['a key git adds in later releases', '[hook "pre-commit"]\n\tcommand = ./evil\n', /hook\.pre-commit\.command/],
    [
      'an include (listed, never followed)',
      '[include]\n\tpath = /etc/gitconfig\n[includeIf "gitdir:/"]\n\tpath = x\n',
      /include\.path, includeif\.gitdir:\/\.path/
    ],
    [
      'a partial clone with a promisor remote',
      '[extensions]\n\tpartialClone = origin\n[remote "origin"]\n\tpromisor = true\n',
      /extensions\.partialclone, remote\.origin\.promisor/
    ],
    ['a worktree set in config', '[core]\n\tworktree = /etc\n', /core\.worktree/],
    ['a remote helper', '[remote "o"]\n\tvcs = evil\n', /remote\.o\.vcs/]
  ]
  for (const [what, text, keys] of refused) {
    it(`refuses ${what}`, async () => {
      await expect(check(text)).rejects.toMatchObject({ code: 'shell.command_refused', message: expect.stringMatching(keys) })
    })
  }

  it("refuses a config git cannot parse, with git's reason", async () => {
    await expect(check('[core\n')).rejects.toThrow(/git could not read the repository config: fatal: bad config line 1/)
  })
})
