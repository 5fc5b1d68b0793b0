import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { drainEvents, WorkspaceWatch } from './workspace-watch'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => {
  dir = makeTempDir('airlock-watch-')
})
afterEach(() => dir.remove())

it('a flood of events closes the watches (the event loop stops reading them) and the next take asks for a whole walk', async () => {
  const root = join(dir.path, 'ws')
  mkdirSync(root)
  writeFileSync(join(root, 'a'), 'x')
  const watch = new WorkspaceWatch()
  watch.add('', root, true)
  watch.trusted()
  writeFileSync(join(root, 'b'), 'y')
  await until(() => watch.changedSinceTake())
  expect(watch.take()).toEqual({ whole: false, folders: new Set(['']) })
  // 6 000 renames there and back: two events each, past the 8 000 a walk may leave unread.
  for (let round = 0; round < 6000; round++) {
    renameSync(join(root, 'a'), join(root, 'c'))
    renameSync(join(root, 'c'), join(root, 'a'))
    if (round % 500 === 0) await drainEvents()
  }
  await until(() => !watch.watching(''))
  expect(watch.take()).toEqual({ whole: true })
  watch.close()
})

async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 2000 && !condition(); turn++) await new Promise((resume) => setTimeout(resume, 5))
  expect(condition()).toBe(true)
}
