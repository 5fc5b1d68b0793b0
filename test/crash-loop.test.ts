import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost } from '../src/main/host'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from './support/components'
import { callTool, connectAgent, startServeWithGateway } from './support/mcp-gateway-client'
import { liveProcessesMatching } from './support/processes'
import { runAirlock } from './support/run-cli'
import { makeTempDir } from './support/temp-home'

// SPEC §10, in a loop: `airlock serve` is SIGKILLed at a random moment while agents have commands
// running in bubblewrap, files being written and calls waiting for approval; then started again on
// the same home. After every restart: no call is left `running` (each crashed one is
// `interrupted`), nothing a killed call started is still alive, every pending approval is still
// in the queue, `PRAGMA integrity_check` is ok and the history hash chain verifies.

const iterations = 20
const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
let home: ReturnType<typeof makeTempDir>
const tokens: Record<string, string> = {}

beforeAll(async () => {
  home = makeTempDir('airlock-crash-loop-', { outsideTmp: true })
  const host = createHost({ home: home.path, logError: () => undefined })
  await host.recovered
  tokens.worker = host.agents.agents.create('worker', { profile: { capabilities: ['files', 'shell'], ask: 'never' } }).token
  tokens.asker = host.agents.agents.create('asker', { profile: { capabilities: ['files'], ask: 'always', approvalTimeoutSeconds: 3600 } }).token
  await host.dispose()
})
afterAll(() => home.remove())

const pendingIds = (): string[] => {
  const listed = JSON.parse(runAirlock(['approvals', 'list', '--json', '--home', home.path]).stdout || '[]') as { id: string }[] | { items?: { id: string }[] }
  return (Array.isArray(listed) ? listed : (listed.items ?? [])).map((item) => item.id)
}

describe.skipIf(skip !== undefined)('crash loop', () => {
  it(`survives ${iterations} kills at random points with nothing lost or left running`, async () => {
    let pendingBefore: string[] = []
    // How often the kill caught a sandboxed command alive and an approval waiting (so the checks are not vacuous).
    const caught = { running: 0, waiting: 0 }
    for (let round = 0; round < iterations; round++) {
      const marker = `airlock-crash-loop-${process.pid}-${round}`
      const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home.path])
      const gatewayUrl = served.gatewayLine.replace('Agent gateway: ', '')

      // The previous round's crash has been recovered before the gateway answered.
      const running = JSON.parse(runAirlock(['history', '--status', 'running', '--json', '--limit', '500', '--home', home.path]).stdout) as unknown[]
      expect(running, `round ${round}: calls left running`).toEqual([])
      expect(liveProcessesMatching(`airlock-crash-loop-${process.pid}-${round - 1}`), `round ${round}: survivors`).toEqual([])
      const pending = pendingIds()
      for (const id of pendingBefore) expect(pending, `round ${round}: approval ${id} kept`).toContain(id)
      const db = new Database(join(home.path, 'airlock.db'), { readonly: true })
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      } finally {
        db.close()
      }
      const audit = runAirlock(['audit', 'verify', '--home', home.path])
      expect(audit.code, audit.stdout + audit.stderr).toBe(0)

      // Work in flight: a long command, quick writes, and calls that wait for the operator.
      const worker = await connectAgent(gatewayUrl, tokens.worker!)
      const asker = await connectAgent(gatewayUrl, tokens.asker!)
      const inFlight = [
        callTool(worker.client, 'run_command', { command: `sh -c 'sleep 60' ${marker}` }, { timeout: 120_000 }),
        ...Array.from({ length: 4 }, (_, i) => callTool(worker.client, 'write_file', { path: `round-${round}-${i}.txt`, content: marker })),
        callTool(asker.client, 'write_file', { path: `asked-${round}.txt`, content: 'x' }, { timeout: 120_000 })
      ].map((call) => call.catch(() => undefined))
      await new Promise((resolve) => setTimeout(resolve, 150 + Math.floor(Math.random() * 1200)))
      pendingBefore = pendingIds()
      if (liveProcessesMatching(marker).length > 0) caught.running++
      if (pendingBefore.length > 0) caught.waiting++
      served.child.kill('SIGKILL')
      await new Promise((resolve) => served.child.once('exit', resolve))
      await Promise.all([worker.close().catch(() => undefined), asker.close().catch(() => undefined)])
      await Promise.all(inFlight)
    }
    // One last start recovers the last crash.
    const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home.path])
    try {
      expect(JSON.parse(runAirlock(['history', '--status', 'running', '--json', '--home', home.path]).stdout)).toEqual([])
      expect(liveProcessesMatching(`airlock-crash-loop-${process.pid}-`)).toEqual([])
      const interrupted = JSON.parse(runAirlock(['history', '--status', 'interrupted', '--json', '--limit', '500', '--home', home.path]).stdout) as unknown[]
      expect(interrupted.length).toBeGreaterThan(0)
      expect(caught.running, JSON.stringify(caught)).toBeGreaterThanOrEqual(iterations / 4)
      expect(caught.waiting, JSON.stringify(caught)).toBeGreaterThanOrEqual(iterations / 4)
      expect(runAirlock(['audit', 'verify', '--home', home.path]).code).toBe(0)
    } finally {
      await served.stop()
    }
  }, 600_000)
})
