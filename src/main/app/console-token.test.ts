import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { consoleTokenFile, loadConsoleToken } from './console-token'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => {
  dir = makeTempDir('airlock-console-token-')
})
afterEach(() => dir.remove())

describe('the console token file', () => {
  it('is made once (0600) and kept across loads; rotate makes a new one and says so', () => {
    const first = loadConsoleToken(dir.path)
    expect(first.notes).toEqual([])
    expect(statSync(consoleTokenFile(dir.path)).mode & 0o777).toBe(0o600)
    expect(loadConsoleToken(dir.path).token).toBe(first.token)
    const rotated = loadConsoleToken(dir.path, { rotate: true })
    expect(rotated.token).not.toBe(first.token)
    expect(rotated.notes.join()).toMatch(/new console token/)
    expect(loadConsoleToken(dir.path).token).toBe(rotated.token)
  })

  it('a symbolic link is replaced, never followed (what it points at is untouched)', () => {
    const victim = join(dir.path, 'victim.txt')
    writeFileSync(victim, 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n')
    symlinkSync(victim, consoleTokenFile(dir.path))
    const loaded = loadConsoleToken(dir.path)
    expect(loaded.token).not.toBe('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')
    expect(loaded.notes.join()).toMatch(/was a symbolic link: it was replaced/)
    expect(readFileSync(victim, 'utf8')).toBe('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n')
    expect(statSync(consoleTokenFile(dir.path)).isFile()).toBe(true)
  })

  it('a file others could read, or one without a token, is replaced with a note; a folder there is refused, not removed', () => {
    const file = consoleTokenFile(dir.path)
    writeFileSync(file, 'BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB\n')
    chmodSync(file, 0o644)
    const loose = loadConsoleToken(dir.path)
    expect(loose.token).not.toBe('BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB')
    expect(loose.notes.join()).toMatch(/readable or writable by others \(mode 644\)/)
    writeFileSync(file, 'not a token')
    chmodSync(file, 0o600)
    expect(loadConsoleToken(dir.path).notes.join()).toMatch(/did not hold a console token/)

    const other = makeTempDir('airlock-console-token-dir-')
    try {
      mkdirSync(consoleTokenFile(other.path))
      writeFileSync(join(consoleTokenFile(other.path), 'keep'), 'x')
      expect(() => loadConsoleToken(other.path)).toThrow(/is a folder/)
      expect(readFileSync(join(consoleTokenFile(other.path), 'keep'), 'utf8')).toBe('x')
    } finally {
      other.remove()
    }
  })
})
