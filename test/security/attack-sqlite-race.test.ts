import { mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

// Attack: sqlite_query's database folder swapped for a symlink (RENAME_EXCHANGE, from the agent's
// own sandbox, in a tight loop) while the host checks the path and SQLite opens it. SQLite opens
// by path (following links) and, on a writable connection, creates the file: a swap between the
// check and the open made the host (root in CI) create a file outside the workspace. Now the
// provider opens the folder and file through descriptors (no link followed) and SQLite gets only
// the bytes, so a swap is refused or lands inside the workspace. Safe outcome: nothing ever
// appears in the outside folder.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

const swapper = (outside: string, seconds: number) => `python3 - <<'EOF'
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs('d', exist_ok=True)
try: os.unlink('l')
except FileNotFoundError: pass
os.symlink(${JSON.stringify(outside)}, 'l')
end = time.time() + ${seconds}
n = 0
while time.time() < end:
    libc.renameat2(-100, b'd', -100, b'l', 2)
    n += 1
if os.path.islink('d'):
    libc.renameat2(-100, b'd', -100, b'l', 2)
print('swaps', n)
EOF`

describe.skipIf(skip !== undefined)(`sqlite_query under a swapped folder${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let outside: string

  beforeAll(async () => {
    dir = makeTempDir('airlock-attack-sqlite-', { outsideTmp: true })
    outside = join(dir.path, 'outside')
    mkdirSync(outside, { mode: 0o755 })
    host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
    await host.recovered
    host.agents.service.create('coder', { profile: { capabilities: ['files', 'shell', 'sqlite'], providers: ['bubblewrap'], ask: 'never' } })
  }, 120_000)

  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('never creates a database file outside the workspace', async () => {
    const a = host.agents.sessions.start('coder', 'swapper').sessionId
    const b = host.agents.sessions.start('coder', 'querier').sessionId
    // Make the folder exist before the race starts.
    await host.agents.sessions.execute({ sessionId: a, tool: 'run_command', input: { command: 'mkdir -p d' } })
    const swapping = host.agents.sessions.execute({ sessionId: a, tool: 'run_command', input: { command: swapper(outside, 12) } })
    const deadline = Date.now() + 11_000
    let attempts = 0
    const outcomes = new Map<string, number>()
    await new Promise((resolve) => setTimeout(resolve, 1500))
    while (Date.now() < deadline) {
      const result = await host.agents.sessions.execute({
        sessionId: b,
        tool: 'sqlite_query',
        input: { database: `d/v${attempts}.db`, sql: 'CREATE TABLE t (x)' }
      })
      const outcome = `${result.status}${result.error ? ` ${result.error.code}` : ''}`
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
      attempts += 1
    }
    const swapped = await swapping
    expect((swapped.data as { stdout: string }).stdout).toMatch(/swaps \d+/)
    expect(attempts).toBeGreaterThan(10)
    expect(readdirSync(outside), `files created outside the workspace after ${attempts} attempts`).toEqual([])
    // The race was run both ways: some calls found the link (refused), some the folder (written inside).
    const seen = Object.fromEntries(outcomes)
    expect(Object.keys(seen).sort(), JSON.stringify(seen)).toEqual(['blocked sqlite_query.path_refused', 'success'])
    const workspaceFolder = join(dir.path, 'home', 'workspaces', 'coder', 'd')
    expect(
      readdirSync(workspaceFolder).every((name) => /^v\d+\.db$/.test(name)),
      'only the databases, no temporary file left'
    ).toBe(true)
    expect(readdirSync(workspaceFolder).length).toBe(seen.success)
  }, 60_000)
})
