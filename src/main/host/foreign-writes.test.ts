import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { openStore, type Store } from '../store'
import { watchForeignWrites } from './foreign-writes'

let dir: ReturnType<typeof makeTempDir>
let mine: Store
let theirs: Store
beforeEach(() => {
  dir = makeTempDir('airlock-foreign-')
  mine = openStore(join(dir.path, 'airlock.db'))
  theirs = openStore(join(dir.path, 'airlock.db'))
})
afterEach(() => {
  mine.close()
  theirs.close()
  dir.remove()
})

describe('watchForeignWrites (SQLite data_version)', () => {
  it('tells of another connection’s commit, never of this connection’s own', async () => {
    const seen: number[] = []
    const stop = watchForeignWrites(mine.db, (version) => seen.push(version), 20)
    try {
      mine.settings.write('own.write', 1)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(seen).toEqual([])
      theirs.settings.write('their.write', 2)
      await expect.poll(() => seen.length, { timeout: 2000 }).toBe(1)
    } finally {
      stop()
    }
  })
})
