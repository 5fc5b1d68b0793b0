// The home is the policy: its database holds the rules, the agents' token hashes and the approval
// queue. Another user who can replace the home, or a folder or link on the way to it, could grant
// themselves what the operator never approved. Each attack below is refused with why, and nothing
// is made or changed (issue 26's bad input: a symlinked parent, a home owned by another user, a
// home on a read-only mount).
import { spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { homeSafetyProblem } from '../../src/main/host/home-safety'
import { createHomeDirectory } from '../../src/main/host/paths'
import { airlockBin, runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

const asRoot = process.getuid?.() === 0
/** Another user: `nobody` as seen from root. */
const other = 65534

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => {
  dir = makeTempDir('airlock-home-attack-', { outsideTmp: true })
})
afterEach(() => dir.remove())

describe('a home of the user’s own', () => {
  it('is accepted, also through a link the user owns; a world-writable sticky folder (/tmp) on the way is fine', () => {
    const real = join(dir.path, 'real')
    mkdirSync(real, { mode: 0o711 })
    symlinkSync(real, join(dir.path, 'link'))
    expect(homeSafetyProblem(join(dir.path, 'link', 'home'))).toBeUndefined()
    createHomeDirectory(join(dir.path, 'link', 'home'))
    expect(statSync(join(real, 'home')).isDirectory()).toBe(true)
    expect(homeSafetyProblem('/tmp/airlock-not-made-yet/home')).toBeUndefined()
  })

  it('a folder on the way writable by others (not sticky) is refused, naming it; nothing is made', () => {
    const open = join(dir.path, 'open')
    mkdirSync(open)
    chmodSync(open, 0o777)
    expect(() => createHomeDirectory(join(open, 'home'))).toThrow(/open is writable by other users \(mode 777\)/)
    expect(readdirSync(open)).toEqual([])
  })

  it('an existing home writable by others is refused, not repaired behind the operator’s back', () => {
    const home = join(dir.path, 'home')
    mkdirSync(home)
    chmodSync(home, 0o757)
    expect(() => createHomeDirectory(home)).toThrow(/home is writable by other users \(mode 757\)/)
    expect(statSync(home).mode & 0o777).toBe(0o757)
  })

  it.skipIf(asRoot)('as an ordinary user, a folder root owns is no home (it is not the user’s)', () => {
    expect(homeSafetyProblem('/usr')).toMatch(/\/usr belongs to uid 0, not to you/)
  })

  it('a file where the home should be is refused', () => {
    const cli = runAirlock(['agent', 'create', 'coder', '--home', airlockBin])
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toMatch(/is not a folder/)
  })
})

describe.skipIf(!asRoot)(`another user’s home or path, as root${asRoot ? '' : ' (skipped: not root)'}`, () => {
  it('a home owned by another user is refused: the CLI says why and writes nothing into it', () => {
    const home = join(dir.path, 'theirs')
    mkdirSync(home, { mode: 0o711 })
    chownSync(home, other, other)
    const cli = runAirlock(['agent', 'create', 'coder', '--home', home])
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toMatch(new RegExp(`theirs belongs to uid ${other}, not to you \\(uid 0\\)`))
    expect(readdirSync(home)).toEqual([])
  })

  it('a folder above the home that another user owns is refused (they could rename the home away and put theirs there)', () => {
    const parent = join(dir.path, 'their-folder')
    mkdirSync(parent, { mode: 0o755 })
    chownSync(parent, other, other)
    expect(() => createHomeDirectory(join(parent, 'airlock'))).toThrow(new RegExp(`their-folder belongs to uid ${other}, not to root or you`))
    expect(existsSync(join(parent, 'airlock'))).toBe(false)
  })

  it('a symbolic link on the way that another user owns is refused, though where it points is fine', () => {
    const real = join(dir.path, 'real')
    mkdirSync(real, { mode: 0o711 })
    const link = join(dir.path, 'link')
    symlinkSync(real, link)
    lchownSync(link, other, other)
    expect(() => createHomeDirectory(join(link, 'home'))).toThrow(new RegExp(`link belongs to uid ${other}`))
    expect(readdirSync(real)).toEqual([])
  })

  it('a link to a folder another user owns is refused on its real path', () => {
    const theirs = join(dir.path, 'theirs')
    mkdirSync(theirs, { mode: 0o755 })
    chownSync(theirs, other, other)
    symlinkSync(theirs, join(dir.path, 'mine'))
    expect(homeSafetyProblem(join(dir.path, 'mine', 'home'))).toMatch(new RegExp(`theirs belongs to uid ${other}`))
  })

  it('a home on a read-only mount is refused with why (a private mount namespace: the machine’s mounts are untouched)', () => {
    const home = join(dir.path, 'ro')
    mkdirSync(home, { mode: 0o711 })
    const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && exec "$2" "$3" agent create coder --home "$1"'
    const run = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', home, process.execPath, airlockBin], { encoding: 'utf8' })
    expect(run.status).not.toBe(0)
    expect(run.stderr).toMatch(/ro is on a read-only filesystem/)
    expect(readdirSync(home)).toEqual([])
  })

  it('`airlock home move` will not move a home into another user’s folder', () => {
    const home = join(dir.path, 'home')
    expect(runAirlock(['agent', 'create', 'coder', '--home', home]).code).toBe(0)
    const theirs = join(dir.path, 'theirs')
    mkdirSync(theirs, { mode: 0o755 })
    chownSync(theirs, other, other)
    const moved = runAirlock(['home', 'move', join(theirs, 'airlock'), '--home', home])
    expect(moved.code).not.toBe(0)
    expect(moved.stderr).toMatch(new RegExp(`theirs belongs to uid ${other}`))
    expect(existsSync(join(home, 'airlock.db'))).toBe(true)
  })
})
