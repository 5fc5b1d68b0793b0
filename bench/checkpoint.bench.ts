import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { it } from 'vitest'
import { ContentStore, WorkspaceCheckpoints } from '../src/main/console/checkpoints'
import { openStore, type Store } from '../src/main/store'
import { makeTempDir } from '../test/support/temp-home'
import { record, summarise, type BenchResult } from './support/measure'

/**
 * Workspace checkpoints (issue 28): what a checkpoint adds to a mutating call, on a workspace of
 * 1 000 and of 10 000 files (100 per folder) where the call changes one file — the walk before
 * the call, the walk after it, storing the changed content and recording the checkpoint in a real
 * SQLite file — against the same change made bare, samples alternating. With the workspace watch
 * (what the console runs) and, for reference, with whole walks (what a console does when it cannot
 * watch). Then the store's size after 100 edits of one line of a 1 MB file (whole versions kept).
 */
const samples = 200

/** The checkpoint service over a bench folder's store, with retention out of the way. */
function checkpointsIn(dir: string, store: Store, workspace: string, watch: boolean): WorkspaceCheckpoints {
  const content = new ContentStore(join(dir, 'checkpoints'))
  content.open()
  return new WorkspaceCheckpoints({
    repository: store.checkpoints,
    store: content,
    settings: () => ({ enabled: true, maxFileBytes: 20 * 1024 * 1024, keepDays: 30, keepCount: 100_000, maxStoreBytes: 1024 ** 4 }),
    workspaceOf: () => workspace,
    watch
  })
}

async function overhead(files: number, watch: boolean): Promise<BenchResult> {
  const dir = makeTempDir('airlock-bench-checkpoint-', { outsideTmp: true })
  const store = openStore(join(dir.path, 'airlock.db'))
  try {
    const workspace = join(dir.path, 'ws')
    for (let folder = 0; folder < files / 100; folder++) {
      mkdirSync(join(workspace, `d${folder}`), { recursive: true })
      for (let file = 0; file < 100; file++) writeFileSync(join(workspace, `d${folder}`, `f${file}.txt`), `file ${folder}/${file}\n`)
    }
    const checkpoints = checkpointsIn(dir.path, store, workspace, watch)
    // The baseline walk (every file stored once) is the workspace's first checkpoint, not a call's.
    await checkpoints.sync('bench', { kind: 'outside' })
    let n = 0
    const change = () => writeFileSync(join(workspace, `d${n % (files / 100)}`, `f${n % 100}.txt`), `changed ${n++}\n`)
    const pipeline = async () => {
      const end = await checkpoints.beforeCall('bench')
      change()
      await end(`00000000-0000-4000-8000-${String(n).padStart(12, '0')}`)
    }
    for (let i = 0; i < 10; i++) await pipeline()
    const overheads: number[] = []
    for (let i = 0; i < samples; i++) {
      let started = performance.now()
      change()
      const bare = performance.now() - started
      started = performance.now()
      await pipeline()
      overheads.push(performance.now() - started - bare)
    }
    checkpoints.dispose()
    const { median, p95 } = summarise(overheads)
    const goal = files <= 1000 ? 10 : 50
    return {
      name: `checkpoint.overhead_ms.${files === 1000 ? '1k' : '10k'}_files${watch ? '' : '.whole_walks'}`,
      unit: 'ms',
      median: Number(median.toFixed(3)),
      p95: Number(p95.toFixed(3)),
      samples,
      note: `${watch ? 'with the workspace watch (the console)' : 'whole walks before and after (no watch)'}; one file changed per call; goal median ≤ ${goal} ms`
    }
  } finally {
    store.close()
    dir.remove()
  }
}

async function storeBytes(): Promise<BenchResult> {
  const dir = makeTempDir('airlock-bench-checkpoint-store-', { outsideTmp: true })
  const store = openStore(join(dir.path, 'airlock.db'))
  try {
    const workspace = join(dir.path, 'ws')
    mkdirSync(workspace)
    const checkpoints = checkpointsIn(dir.path, store, workspace, true)
    const lines = Array.from({ length: 16_384 }, (_, i) => `line ${String(i).padStart(6, '0')} ${'x'.repeat(50)}\n`)
    writeFileSync(join(workspace, 'big.txt'), lines.join(''))
    await checkpoints.sync('bench', { kind: 'outside' })
    for (let edit = 0; edit < 100; edit++) {
      const end = await checkpoints.beforeCall('bench')
      lines[(edit * 97) % lines.length] = `edited ${edit}\n`
      writeFileSync(join(workspace, 'big.txt'), lines.join(''))
      await end(`00000000-0000-4000-8000-${String(edit).padStart(12, '0')}`)
    }
    checkpoints.dispose()
    const bytes = checkpoints.storeBytes('bench')
    return {
      name: 'checkpoint.store_bytes',
      unit: 'bytes',
      median: bytes,
      p95: bytes,
      samples: 1,
      note: `after 100 one-line edits of a ${(Buffer.byteLength(lines.join('')) / 1e6).toFixed(2)} MB file: every version whole (no deltas, no compression)`
    }
  } finally {
    store.close()
    dir.remove()
  }
}

it('checkpoint: overhead per mutating call, and the store after 100 edits', async () => {
  const results: BenchResult[] = []
  for (const files of [1000, 10_000]) results.push(await overhead(files, true))
  results.push(await overhead(10_000, false))
  results.push(await storeBytes())
  record('checkpoint', results)
})
