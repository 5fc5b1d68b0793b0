import { spawnSync } from 'node:child_process'
import { appendFileSync, chmodSync, linkSync, mkdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { workspaceUsage } from '../files/workspace'
import { makeTempDir } from '../../../test/support/temp-home'
import { WorkspaceUsageIndex } from './workspace-usage'

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let index: WorkspaceUsageIndex
beforeEach(() => {
  dir = makeTempDir('airlock-usage-')
  workspace = join(dir.path, 'ws')
  mkdirSync(workspace)
  index = new WorkspaceUsageIndex()
})
afterEach(() => {
  index.dispose()
  dir.remove()
})

const mib = (n: number) => Buffer.alloc(n * 1024 * 1024, 1)

describe('WorkspaceUsageIndex', () => {
  it('after every step of a varied working session it says exactly what a whole walk (workspaceUsage) measures', async () => {
    const outside = join(dir.path, 'outside')
    mkdirSync(outside)
    writeFileSync(join(outside, 'big'), mib(3))
    const steps: [string, () => void][] = [
      ['files at the root', () => ['a.txt', 'b.txt'].forEach((name) => writeFileSync(join(workspace, name), 'x'.repeat(9000)))],
      [
        'a nested tree',
        () => {
          mkdirSync(join(workspace, 'src/lib/deep'), { recursive: true })
          writeFileSync(join(workspace, 'src/lib/deep/one.js'), 'y'.repeat(70_000))
          writeFileSync(join(workspace, 'src/index.js'), 'z')
        }
      ],
      ['a file grown in place', () => appendFileSync(join(workspace, 'src/lib/deep/one.js'), mib(1))],
      [
        'a hard link in another folder, then the file grown through one name',
        () => {
          linkSync(join(workspace, 'a.txt'), join(workspace, 'src/a-link.txt'))
          appendFileSync(join(workspace, 'src/a-link.txt'), mib(1))
        }
      ],
      ['one of the two names removed', () => rmSync(join(workspace, 'a.txt'))],
      [
        'a new folder holding a second name of a file elsewhere',
        () => {
          mkdirSync(join(workspace, 'copies'))
          linkSync(join(workspace, 'b.txt'), join(workspace, 'copies/b.txt'))
        }
      ],
      ['a folder renamed', () => renameSync(join(workspace, 'src/lib'), join(workspace, 'lib2'))],
      [
        'a folder replaced by another at the same name',
        () => {
          rmSync(join(workspace, 'lib2'), { recursive: true })
          mkdirSync(join(workspace, 'lib2/other'), { recursive: true })
          writeFileSync(join(workspace, 'lib2/other/new.bin'), mib(2))
        }
      ],
      [
        'a folder swapped for a link to a big folder outside (never followed)',
        () => {
          rmSync(join(workspace, 'lib2'), { recursive: true })
          symlinkSync(outside, join(workspace, 'lib2'))
        }
      ],
      [
        'a sparse file, a fifo, a mode change',
        () => {
          writeFileSync(join(workspace, 'sparse'), '')
          truncateSync(join(workspace, 'sparse'), 1024 ** 3)
          spawnSync('mkfifo', [join(workspace, 'pipe')])
          chmodSync(join(workspace, 'b.txt'), 0o600)
        }
      ],
      [
        'files written into a folder made in the same step',
        () => {
          mkdirSync(join(workspace, '.airlock/executions/c1'), { recursive: true })
          writeFileSync(join(workspace, '.airlock/executions/c1/out.log'), mib(1))
        }
      ],
      ['a tree removed whole', () => rmSync(join(workspace, '.airlock'), { recursive: true })],
      ['nothing changed', () => undefined]
    ]
    expect(await index.measure(workspace)).toEqual(await workspaceUsage(workspace))
    for (const [what, step] of steps) {
      step()
      expect(await index.measure(workspace), what).toEqual(await workspaceUsage(workspace))
    }
    // The first measurement and the two steps that made new hard links walk everything (3); the
    // others read only what changed. A busy disk (other suites writing > 8 MiB between two steps)
    // may add a whole walk or two, never one per step.
    expect(index.wholeWalks).toBeGreaterThanOrEqual(3)
    expect(index.wholeWalks).toBeLessThanOrEqual(6)
  })

  it('space lost that inotify never reported (a write through a hard link from outside) makes it walk the whole workspace', async () => {
    const outside = join(dir.path, 'outside-file')
    writeFileSync(outside, 'seed')
    linkSync(outside, join(workspace, 'linked'))
    expect(await index.measure(workspace)).toEqual(await workspaceUsage(workspace))
    // Written through the outside name: no event in the workspace, but the file system lost 24 MiB.
    appendFileSync(outside, mib(24))
    spawnSync('sync')
    const measured = await index.measure(workspace)
    expect(measured.bytes).toBeGreaterThan(24 * 1024 * 1024)
    expect(measured).toEqual(await workspaceUsage(workspace))
  })

  it('small unexplained losses add up: what writes without an event can hide stays under 8 MiB, however many calls make it', async () => {
    const outside = join(dir.path, 'outside-file')
    writeFileSync(outside, 'seed')
    linkSync(outside, join(workspace, 'linked'))
    await index.measure(workspace)
    for (let round = 0; round < 8; round++) {
      appendFileSync(outside, mib(3))
      spawnSync('sync')
      const measured = await index.measure(workspace)
      const truth = await workspaceUsage(workspace)
      expect(truth.bytes - measured.bytes, `round ${round}`).toBeLessThanOrEqual(8 * 1024 * 1024)
    }
    // 24 MiB written unseen in 3 MiB steps: a whole walk each time the sum passed 8 MiB.
    expect(index.wholeWalks).toBeGreaterThanOrEqual(3)
  })

  it('a workspace that is gone is an error, and the next measurement after it is back walks it whole', async () => {
    expect((await index.measure(workspace)).entries).toBe(0)
    rmSync(workspace, { recursive: true })
    await expect(index.measure(workspace)).rejects.toThrow()
    mkdirSync(join(workspace, 'again'), { recursive: true })
    expect(await index.measure(workspace)).toEqual(await workspaceUsage(workspace))
  })
})
