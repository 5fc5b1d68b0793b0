import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { pathKey, type IndexedEntry } from '../../store'
import { makeTempDir } from '../../../../test/support/temp-home'
import { ContentStore } from './content-store'
import { scanWorkspace } from './workspace-scan'

// The walk behind every checkpoint, on real trees: what a sandbox can leave in a workspace (FIFOs,
// huge files, a file still being written, a hundred thousand files) is walked without blocking,
// without reading what it must not, and bounded.

let dir: ReturnType<typeof makeTempDir>
let store: ContentStore
const known = new Set<string>()
const options = (maxFileBytes = 20 * 1024 * 1024) => ({
  maxFileBytes,
  known: (hash: string) => known.has(hash),
  onStored: (hash: string) => void known.add(hash)
})

/** Scans `root` against `index` and returns the result with the index brought up to date. */
async function scan(root: string, index: Map<string, IndexedEntry>, maxFileBytes?: number) {
  const fd = openSync(root, 'r')
  try {
    const result = await scanWorkspace(fd, index, store, options(maxFileBytes))
    for (const entry of result.upserts) index.set(pathKey(entry.path), entry)
    for (const path of result.removed) index.delete(pathKey(path))
    return result
  } finally {
    closeSync(fd)
  }
}

beforeEach(() => {
  dir = makeTempDir('airlock-scan-')
  store = new ContentStore(join(dir.path, 'store'))
  store.open()
  mkdirSync(join(dir.path, 'ws'))
  known.clear()
})
afterEach(() => dir.remove())

describe('scanWorkspace', () => {
  it('records a FIFO by kind without opening it, and a file over the cap by hash without keeping it', async () => {
    const ws = join(dir.path, 'ws')
    spawnSync('mkfifo', [join(ws, 'pipe')])
    // 2 GiB, sparse: hashed as it reads, never copied.
    const big = join(ws, 'big.bin')
    closeSync(openSync(big, 'w'))
    truncateSync(big, 2 * 1024 * 1024 * 1024)
    const result = await scan(ws, new Map(), 1024 * 1024)
    const byName = Object.fromEntries(result.upserts.map((entry) => [entry.path.toString(), entry]))
    expect(byName.pipe).toMatchObject({ kind: 'other', hash: null, kept: false })
    expect(byName['big.bin']).toMatchObject({ kind: 'file', size: 2 * 1024 * 1024 * 1024, kept: false, hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(known.size).toBe(0)
  }, 120_000)

  it('a file written while it is read is kept only as one consistent version (or recorded changed without content)', async () => {
    const ws = join(dir.path, 'ws')
    writeFileSync(join(ws, 'grow.log'), 'start\n')
    const writer = spawn('sh', ['-c', `while :; do echo line >> '${join(ws, 'grow.log')}'; done`], { stdio: 'ignore' })
    try {
      await new Promise((resume) => setTimeout(resume, 100))
      const result = await scan(ws, new Map())
      const entry = result.upserts.find((e) => e.path.toString() === 'grow.log')!
      if (entry.kept)
        expect(
          createHash('sha256')
            .update(readFileSync(store.pathOf(entry.hash!)))
            .digest('hex')
        ).toBe(entry.hash)
      else expect(result.unstable).toContain('grow.log')
    } finally {
      writer.kill('SIGKILL')
    }
  })

  it('walks 100 000 files, and finds the one that changed next time at the cost of stat calls', async () => {
    // On tmpfs where there is one: making 100 000 files on a slow disk takes a minute, and the walk is what is tested.
    const shm = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/airlock-scan-') : undefined
    const ws = shm ?? join(dir.path, 'ws')
    try {
      spawnSync('python3', [
        '-c',
        `import os\nfor d in range(100):\n  os.makedirs('${ws}/d%d' % d)\n  [open('${ws}/d%d/f%d' % (d, f), 'w').write(str(f)) for f in range(1000)]`
      ])
      const index = new Map<string, IndexedEntry>()
      const first = await scan(ws, index)
      expect(first.usage.entries).toBe(100_100)
      expect(first.complete).toBe(true)
      writeFileSync(join(ws, 'd42', 'f7'), 'changed')
      const second = await scan(ws, index)
      expect(second.changes.map((change) => [change.path.toString(), change.change])).toEqual([['d42/f7', 'modified']])
      expect(second.newBytes).toBe('changed'.length)
    } finally {
      if (shm) rmSync(shm, { recursive: true, force: true })
    }
  }, 300_000)
})
