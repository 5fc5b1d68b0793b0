// The after-run quota check reads a per-folder index that inotify keeps current (issue 29), so the
// attack is to write in a way inotify never reports: filling a sparse file's holes through a shared
// memory mapping, a few MiB per call, in a folder nothing else touches. The file system still loses
// the space, and the index sums what it cannot explain: the quota holds within its 8 MiB slack.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

const MiB = 1024 * 1024
const quotaMb = 24
const perCallMb = 5

/**
 * Python that maps `perCallMb` MiB of hide/sparse (64 MiB, sparse) at `offset` and fills it through
 * the mapping: no write(2), no inotify event. Only the window is mapped: without a memory cgroup
 * (an unprivileged Airlock) the sandbox's address space is capped by an rlimit.
 */
function fillThroughMapping(offset: number): string {
  const script = [
    'import mmap, os',
    "os.makedirs('hide', exist_ok=True)",
    "p = 'hide/sparse'",
    'new = not os.path.exists(p)',
    "f = open(p, 'a+b' if new else 'r+b')",
    'if new: f.truncate(64 << 20)',
    `m = mmap.mmap(f.fileno(), ${perCallMb * MiB}, offset=${offset})`,
    `m[:] = b'x' * ${perCallMb * MiB}`,
    'm.flush()',
    "print('filled')"
  ].join('\n')
  return `python3 -c "${script}"`
}

describe.skipIf(skip !== undefined)(`the quota index against writes inotify never sees${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let sessionId: string

  beforeAll(async () => {
    dir = makeTempDir('airlock-quota-index-', { outsideTmp: true })
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    host.agents.service.create('mapper', { profile: { providers: ['bubblewrap'], ask: 'never', limits: { diskMb: quotaMb, timeoutSeconds: 60 } } })
    sessionId = host.agents.sessions.start('mapper', 'test').sessionId
  }, 60_000)
  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it(`${perCallMb} MiB a call through a shared mapping: the quota is found broken before the workspace holds ${quotaMb} + 8 MiB`, async () => {
    const outcomes: string[] = []
    for (let call = 0; call < 10; call++) {
      const result = await host.agents.sessions.execute({ sessionId, tool: 'run_command', input: { command: fillThroughMapping(call * perCallMb * MiB) } })
      outcomes.push(`${result.status}:${result.error?.code ?? (result.data as { stdout?: string } | undefined)?.stdout?.trim()}`)
      if (result.error?.code === 'workspace_file.quota_exceeded') break
      expect(result.status, JSON.stringify(result.error)).toBe('success')
      expect((result.data as { stdout: string; stderr: string }).stdout, (result.data as { stderr: string }).stderr).toContain('filled')
      // Never more than the quota plus the slack written before it is noticed.
      expect((call + 1) * perCallMb, outcomes.join(' ')).toBeLessThanOrEqual(quotaMb + 8)
    }
    expect(outcomes.at(-1), outcomes.join(' ')).toBe('error:workspace_file.quota_exceeded')
  }, 180_000)
})
