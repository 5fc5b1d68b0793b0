import { closeSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WorkspaceBrowser } from '../../src/main/console/workspace-browser'
import { openWorkspaceRoot } from '../../src/main/console/workspace-entries'
import { recentChanges } from '../../src/main/console/workspace-recent'
import { skipReasonFor } from '../support/components'

// Attack: file metadata and names sandboxed code controls, against the console's workspace
// browser. tmpfs keeps any 64-bit mtime (ext4 clamps to 2446), so the workspace here is on
// /dev/shm: a time JavaScript cannot print must not make a listing, a read or `recent` fail, and
// two names that are different bytes must never be shown as one (a click on one opening the other).

const shm = '/dev/shm'
const reason = skipReasonFor('tmpfs at /dev/shm', { available: existsSync(shm), reason: '/dev/shm is not mounted' })
let ws: string
let browser: WorkspaceBrowser

beforeEach(() => {
  if (reason) return
  ws = mkdtempSync(join(shm, 'airlock-names-'))
  browser = new WorkspaceBrowser({ workspaceOf: () => ws })
})
afterEach(() => {
  if (!reason) rmSync(ws, { recursive: true, force: true })
})

describe.skipIf(reason !== undefined)('attack: hostile file times and names in the workspace browser', () => {
  it('a file dated 285 000 years ahead is listed, read and counted in recent with a clamped time', async () => {
    mkdirSync(join(ws, 'sub'))
    const planted = join(ws, 'sub', 'evil.txt')
    writeFileSync(planted, 'x')
    writeFileSync(join(ws, 'sub', 'ok.txt'), 'y')
    utimesSync(planted, 9e12, 9e12)
    // The attack is real on this filesystem: Node's own Date cannot print the time.
    expect(() => statSync(planted).mtime.toISOString()).toThrow(RangeError)

    const listing = await browser.list('coder', 'sub')
    expect(listing.entries.map((entry) => [entry.name, entry.modifiedAt])).toEqual([
      ['evil.txt', '+275760-09-13T00:00:00.000Z'],
      ['ok.txt', expect.stringMatching(/^20\d\d-/)]
    ])
    expect((await browser.read('coder', 'sub/evil.txt')).text).toBe('x')
    expect((await browser.recent('coder')).changes.map((change) => change.path)).toEqual(['sub/evil.txt', 'sub/ok.txt'])
  })

  it('a name that is not UTF-8 is listed escaped and unreadable, never as the UTF-8 name it decodes to', async () => {
    const replacement = '\uFFFD'
    writeFileSync(Buffer.from(`${ws}/\xff`, 'latin1'), 'BYTES-FF')
    writeFileSync(join(ws, replacement), 'REPLACEMENT-CHAR')
    const entries = (await browser.list('coder')).entries
    expect(entries.map((entry) => [entry.name, entry.kind])).toEqual(
      expect.arrayContaining([
        ['\\xff', 'other'],
        [replacement, 'file']
      ])
    )
    expect((await browser.read('coder', replacement)).text).toBe('REPLACEMENT-CHAR')
    await expect(browser.read('coder', '\\xff')).rejects.toMatchObject({ code: 'workspace.not_found' })
    expect((await browser.recent('coder')).changes.map((change) => change.path)).toEqual([replacement])
  })

  it('recent stops at its time bound between folders too, and a depth cut does not end the walk of shallower folders', async () => {
    // Many empty folders: each costs a reopen and a read but holds no entry to check the clock at.
    for (let index = 0; index < 300; index++) mkdirSync(join(ws, `d${index}`))
    const rootFd = openWorkspaceRoot(ws)
    try {
      const timed = await recentChanges(rootFd, 10, { maxEntries: 1_000_000, maxDepth: 24, maxMs: 0 })
      expect(timed.complete).toBe(false)
      expect(timed.scanned).toBeLessThan(300)
      mkdirSync(join(ws, 'a', 'b', 'c'), { recursive: true })
      writeFileSync(join(ws, 'a', 'b', 'c', 'deep.txt'), 'd')
      writeFileSync(join(ws, 'd299', 'shallow.txt'), 's')
      const capped = await recentChanges(rootFd, 10, { maxEntries: 1_000_000, maxDepth: 2, maxMs: 60_000 })
      expect(capped.complete).toBe(false)
      expect(capped.changes.map((change) => change.path)).toEqual(['d299/shallow.txt'])
    } finally {
      closeSync(rootFd)
    }
  })
})
