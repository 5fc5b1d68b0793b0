import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import { openStore, type Store } from '../../src/main/store'
import { makeTempDir } from './temp-home'

/** A fresh store in its own temporary home for each test of the file, closed and removed after it (a test may reopen `store`). */
export function storeEachTest(): { store: Store; readonly dir: ReturnType<typeof makeTempDir> } {
  const current = {} as { store: Store; dir: ReturnType<typeof makeTempDir> }
  beforeEach(() => {
    current.dir = makeTempDir()
    current.store = openStore(join(current.dir.path, 'airlock.db'))
  })
  afterEach(() => {
    current.store.close()
    current.dir.remove()
  })
  return current
}
