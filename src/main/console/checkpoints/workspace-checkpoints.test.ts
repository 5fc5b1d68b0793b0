import { appendFileSync, chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore, type Store } from '../../store'
import { makeTempDir } from '../../../../test/support/temp-home'
import { ContentStore } from './content-store'
import { WorkspaceCheckpoints } from './workspace-checkpoints'

// The workspace watch lets a checkpoint walk only the folders that changed. Whatever happens to
// the tree, the index a run of such partial walks keeps must be the index one whole walk of the
// same tree makes: checked here after every step of a long, varied sequence of changes.

let dir: ReturnType<typeof makeTempDir>
const opened: Store[] = []
const settings = () => ({ enabled: true, maxFileBytes: 1024 * 1024, keepDays: 30, keepCount: 1000, maxStoreBytes: 1024 ** 3 })

function checkpoints(name: string, watch: boolean) {
  const store = openStore(join(dir.path, `${name}.db`))
  opened.push(store)
  const content = new ContentStore(join(dir.path, `${name}-store`))
  content.open()
  return {
    store,
    service: new WorkspaceCheckpoints({
      repository: store.checkpoints,
      store: content,
      settings,
      workspaceOf: () => join(dir.path, 'ws'),
      watch,
      identity: { uid: 0, gid: 0, dedicated: false }
    })
  }
}

const indexOf = (store: Store) =>
  [...store.checkpoints.index('a').values()]
    .map((e) => `${e.path.toString('latin1')} ${e.kind} ${e.mode.toString(8)} ${e.kind === 'dir' ? '' : e.size} ${e.hash ?? '-'}`)
    .sort()

beforeEach(() => {
  dir = makeTempDir('airlock-checkpoints-watch-')
  mkdirSync(join(dir.path, 'ws'))
})
afterEach(() => {
  for (const store of opened.splice(0)) store.close()
  dir.remove()
})

describe('checkpoints with a workspace watch', () => {
  it('partial walks keep the same index as a whole walk, step after step', async () => {
    const ws = (...parts: string[]) => join(dir.path, 'ws', ...parts)
    const watched = checkpoints('watched', true)
    const steps: (() => void)[] = [
      () => mkdirSync(ws('a', 'b', 'c'), { recursive: true }),
      () => writeFileSync(ws('a', 'b', 'c', 'deep.txt'), 'deep'),
      () => appendFileSync(ws('a', 'b', 'c', 'deep.txt'), ' more'),
      () => chmodSync(ws('a', 'b'), 0o700),
      () => symlinkSync('/etc', ws('a', 'link')),
      () => renameSync(ws('a', 'b'), ws('moved')),
      () => writeFileSync(ws('moved', 'c', 'new.txt'), 'new'),
      () => rmSync(ws('moved'), { recursive: true }),
      () => mkdirSync(ws('moved', 'again'), { recursive: true }),
      () => writeFileSync(ws('moved', 'again', 'f'), 'f'),
      () => {
        rmSync(ws('a'), { recursive: true })
        mkdirSync(ws('a'))
        writeFileSync(ws('a', 'same-name-new-folder'), 'x')
      },
      () => writeFileSync(ws('top.txt'), 'top'),
      () => chmodSync(ws('top.txt'), 0o600)
    ]
    await watched.service.sync('a', { kind: 'outside' })
    for (const [at, step] of steps.entries()) {
      step()
      await watched.service.sync('a', { kind: 'outside', note: `step ${at}` })
      const whole = checkpoints(`whole-${at}`, false)
      await whole.service.sync('a', { kind: 'outside' })
      expect(indexOf(watched.store), `after step ${at}`).toEqual(indexOf(whole.store))
    }
    watched.service.dispose()
  })

  it('skips the walk before a call when nothing changed, and records a change made between calls as outside', async () => {
    const { service } = checkpoints('calls', true)
    writeFileSync(join(dir.path, 'ws', 'one.txt'), '1')
    const end = await service.beforeCall('a')
    writeFileSync(join(dir.path, 'ws', 'two.txt'), '2')
    expect((await end('11111111-1111-4111-8111-111111111111'))?.checkpoint).toMatchObject({ kind: 'call', files: 1 })
    const quiet = await service.beforeCall('a')
    expect(await quiet('22222222-2222-4222-8222-222222222222')).toMatchObject({ changes: [] })
    writeFileSync(join(dir.path, 'ws', 'one.txt'), 'edited by hand')
    const next = await service.beforeCall('a')
    await next('33333333-3333-4333-8333-333333333333')
    expect(service.list('a', { limit: 1 })[0]).toMatchObject({ kind: 'outside', files: 1 })
    service.dispose()
  })

  it('prunes the oldest checkpoints past keep_count, says so, and drops content nothing refers to any more', async () => {
    const store = openStore(join(dir.path, 'prune.db'))
    opened.push(store)
    const content = new ContentStore(join(dir.path, 'prune-store'))
    content.open()
    const pruned: string[] = []
    const service = new WorkspaceCheckpoints({
      repository: store.checkpoints,
      store: content,
      settings: () => ({ ...settings(), keepCount: 2 }),
      workspaceOf: () => join(dir.path, 'ws'),
      onPruned: (_agent, records) => pruned.push(...records.map((record) => record.id)),
      identity: { uid: 0, gid: 0, dedicated: false }
    })
    await service.sync('a', { kind: 'outside' })
    const ids: string[] = []
    for (let version = 1; version <= 4; version++) {
      const end = await service.beforeCall('a')
      writeFileSync(join(dir.path, 'ws', 'f.txt'), `version ${version}`)
      const id = `0000000${version}-0000-4000-8000-000000000000`
      await end(id)
      ids.push(id)
    }
    expect(pruned).toEqual([ids[0], ids[1]])
    expect(service.list('a').map((record) => [record.id, record.prunedAt !== null])).toEqual([
      [ids[3], false],
      [ids[2], false],
      [ids[1], true],
      [ids[0], true]
    ])
    // "version 1" was only held by the first (pruned) checkpoint: gone from the store; "version 2" is still the before of the third.
    const objects = store.db.prepare('select hash from checkpoint_objects').pluck().all() as string[]
    const held = objects.map((hash) => content.read(hash).toString())
    expect(held).not.toContain('version 1')
    expect(held).toEqual(expect.arrayContaining(['version 2', 'version 3', 'version 4']))
    await expect(service.revert(ids[0]!)).rejects.toMatchObject({ code: 'checkpoint.pruned' })
    await expect(service.revert(ids[3]!)).resolves.toMatchObject({ files: 1 })
  })
})
