import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { admitWorkspaceRepository } from './git-repository'
import { resolveHostProgram } from './host-programs'

let dir: ReturnType<typeof makeTempDir>
let ws: string
let marker: string
const git = resolveHostProgram('git', [])
const cleanEnv = { PATH: '/usr/bin:/bin', HOME: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
const setupGit = (...args: string[]) => execFileSync(git, ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, env: cleanEnv })

beforeEach(() => {
  dir = makeTempDir('git-repository-')
  ws = join(dir.path, 'ws')
  marker = join(dir.path, 'PWNED')
  mkdirSync(ws)
  setupGit('init', '-q')
  writeFileSync(join(ws, 'a.txt'), 'one\n')
  setupGit('add', 'a.txt')
  setupGit('commit', '-qm', 'first')
  writeFileSync(join(ws, '.gitattributes'), '* filter=evil\n')
  writeFileSync(join(ws, 'a.txt'), 'two\n')
  writeFileSync(join(dir.path, 'evil.sh'), `#!/bin/sh\necho pwned > '${marker}'\n`, { mode: 0o755 })
})
afterEach(() => dir.remove())

/** git status as the runner starts it, against the given git directory. */
const status = (gitDir: string) =>
  execFileSync(git, ['--no-pager', 'status', '--short'], { cwd: ws, env: { ...cleanEnv, GIT_DIR: gitDir, GIT_WORK_TREE: ws }, encoding: 'utf8' })

describe('the git directory a run uses', () => {
  it('is a snapshot of the checked config: rewriting .git/config after the check slips nothing in', async () => {
    const repository = await admitWorkspaceRepository(ws, [ws], git)
    appendFileSync(join(ws, '.git', 'config'), `[filter "evil"]\n\tclean = ${join(dir.path, 'evil.sh')}\n`)
    expect(status(repository.gitDir)).toContain('M a.txt')
    expect(existsSync(marker)).toBe(false)
    repository.remove()
    expect(existsSync(repository.gitDir)).toBe(false)
    // The same rewrite against the live directory runs the filter: what the snapshot prevents.
    status(join(ws, '.git'))
    expect(existsSync(marker)).toBe(true)
  })

  it('is found from a subdirectory, never above the workspace root', async () => {
    mkdirSync(join(ws, 'sub', 'inner'), { recursive: true })
    const repository = await admitWorkspaceRepository(join(ws, 'sub', 'inner'), [ws], git)
    expect(repository.workTree).toBe(ws)
    repository.remove()
    await expect(admitWorkspaceRepository(join(ws, 'sub'), [join(ws, 'sub')], git)).rejects.toThrow(/no git repository inside the workspace/)
  })
})
