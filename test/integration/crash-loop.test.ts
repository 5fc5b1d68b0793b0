import Database from 'better-sqlite3'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { checkEngine, createDockerClient, homeLabel, labels } from '../../src/main/providers/docker/docker-engine'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { callTool, connectAgent, startServeWithGateway } from '../support/mcp-gateway-client'
import { liveProcessesMatching } from '../support/processes'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// SPEC §10, in a loop: `airlock serve` is SIGKILLed at a random moment while agents have commands
// running in bubblewrap, code running in a Docker container, a call in flight to a sandboxed
// upstream MCP server, files being written and calls waiting for approval; then started again on
// the same home. After every restart: no call is left `running` (each crashed one is
// `interrupted`), nothing a killed call started is still alive (process, container, upstream
// server, the run's cgroup directories), every pending approval is still in the queue,
// `PRAGMA integrity_check` is ok and the history hash chain verifies. A second Airlock home on
// the same machine, serving all along with a command and a container of its own, is left alone.

const iterations = 20
const bwrap = await checkBubblewrapHost()
const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip =
  skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason }) ??
  skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })
const fixtures = resolve(__dirname, '../fixtures')
const upstreamMarker = `airlock-crash-upstream-${process.pid}`
let home: ReturnType<typeof makeTempDir>
let neighbour: ReturnType<typeof makeTempDir>
const tokens: Record<string, string> = {}

beforeAll(async () => {
  if (skip) return
  await ensureTestImages(docker)
  home = makeTempDir('airlock-crash-loop-', { outsideTmp: true })
  neighbour = makeTempDir('airlock-crash-neighbour-', { outsideTmp: true })
  const host = createHost({ home: home.path, logError: () => undefined })
  await host.recovered
  tokens.worker = host.agents.service.create('worker', { profile: { capabilities: ['files', 'shell'], ask: 'never' } }).token
  tokens.asker = host.agents.service.create('asker', { profile: { capabilities: ['files'], ask: 'always', approvalTimeoutSeconds: 3600 } }).token
  tokens.boxer = host.agents.service.create('boxer', { profile: { capabilities: ['python'], providers: ['docker'], ask: 'never' } }).token
  tokens.linker = host.agents.service.create('linker', {
    profile: {
      capabilities: ['mcp'],
      ask: 'never',
      mcpServers: [{ name: 'probe', command: ['/usr/bin/node', join(fixtures, 'mcp-probe-server.mjs'), upstreamMarker], readOnlyPaths: [fixtures] }]
    }
  }).token
  await host.dispose()
  const other = createHost({ home: neighbour.path, logError: () => undefined })
  await other.recovered
  tokens.neighbour = other.agents.service.create('neighbour', {
    profile: { capabilities: ['shell'], providers: ['docker'], ask: 'never', limits: { timeoutSeconds: 3600 } }
  }).token
  await other.dispose()
}, 600_000)
afterAll(() => {
  home?.remove()
  neighbour?.remove()
})

const pendingIds = (): string[] => {
  const listed = JSON.parse(runAirlock(['approvals', 'list', '--json', '--home', home.path]).stdout || '[]') as { id: string }[] | { items?: { id: string }[] }
  return (Array.isArray(listed) ? listed : (listed.items ?? [])).map((item) => item.id)
}
/** Running containers an Airlock home made (by its label). */
const containersOf = async (dir: string) => docker.listContainers({ filters: { label: [`${labels.managed}=true`, `${labels.home}=${homeLabel(dir)}`] } })
/** The cgroup directories (v1 pids/memory/cpuacct, or v2) that hold one of `pids` now. */
function cgroupDirsOf(pids: number[]): string[] {
  const dirs = new Set<string>()
  for (const pid of pids) {
    let membership = ''
    try {
      membership = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    } catch {
      continue
    }
    for (const line of membership.split('\n')) {
      const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? []
      if (!path?.includes('/airlock')) continue
      const controller = controllers === '' ? '' : controllers!.split(',').find((c) => ['pids', 'memory', 'cpuacct'].includes(c))
      if (controller === undefined) continue
      dirs.add(join('/sys/fs/cgroup', controller, path))
    }
  }
  return [...dirs]
}

describe.skipIf(skip !== undefined)(`crash loop${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it(`survives ${iterations} kills at random points with nothing lost, left running, or touched in a second home`, async () => {
    // The second home serves all along: a command sleeping in its own warm container.
    const other = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', neighbour.path])
    const neighbourMarker = `airlock-crash-neighbour-${process.pid}`
    const neighbourAgent = await connectAgent(other.gatewayLine.replace('Agent gateway: ', ''), tokens.neighbour!)
    const neighbourCall = callTool(neighbourAgent.client, 'run_command', { command: `sh -c 'sleep 3000' ${neighbourMarker}` }, { timeout: 3_600_000 }).catch(
      () => undefined
    )
    await expect.poll(() => liveProcessesMatching(neighbourMarker).length, { timeout: 60_000 }).toBeGreaterThan(0)
    const neighbourContainers = (await containersOf(neighbour.path)).map((c) => c.Id)
    expect(neighbourContainers.length).toBe(1)

    let pendingBefore: string[] = []
    let cgroupsBefore: string[] = []
    // How often the kill caught each kind of work in flight (so the checks are not vacuous).
    const caught = { running: 0, waiting: 0, container: 0, upstream: 0, cgroups: 0 }
    try {
      for (let round = 0; round < iterations; round++) {
        const marker = `airlock-crash-loop-${process.pid}-${round}`
        const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home.path])
        const gatewayUrl = served.gatewayLine.replace('Agent gateway: ', '')

        // The previous round's crash has been recovered before the gateway answered.
        const running = JSON.parse(runAirlock(['history', '--status', 'running', '--json', '--limit', '500', '--home', home.path]).stdout) as unknown[]
        expect(running, `round ${round}: calls left running`).toEqual([])
        expect(liveProcessesMatching(`airlock-crash-loop-${process.pid}-${round - 1}`), `round ${round}: survivors`).toEqual([])
        expect(liveProcessesMatching(upstreamMarker), `round ${round}: upstream server survivors`).toEqual([])
        expect(await containersOf(home.path), `round ${round}: containers left`).toEqual([])
        expect(
          cgroupsBefore.filter((dir) => existsSync(dir)),
          `round ${round}: cgroup directories left`
        ).toEqual([])
        // The second home is untouched: its command runs on in its container.
        expect(liveProcessesMatching(neighbourMarker).length, `round ${round}: the second home's command`).toBeGreaterThan(0)
        expect(
          (await containersOf(neighbour.path)).map((c) => c.Id),
          `round ${round}: the second home's container`
        ).toEqual(neighbourContainers)
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

        // Work in flight: a long command, code in a container, an upstream call that never
        // answers, quick writes, and calls that wait for the operator.
        const agents = await Promise.all(['worker', 'asker', 'boxer', 'linker'].map((id) => connectAgent(gatewayUrl, tokens[id]!)))
        const [worker, asker, boxer, linker] = agents as [(typeof agents)[0], (typeof agents)[0], (typeof agents)[0], (typeof agents)[0]]
        const long = { timeout: 120_000 }
        const inFlight = [
          callTool(worker.client, 'run_command', { command: `sh -c 'sleep 60' ${marker}` }, long),
          callTool(boxer.client, 'run_code', { language: 'python', sourceCode: 'import time\ntime.sleep(60)' }, long),
          callTool(linker.client, 'probe__flood', { bytes: 1 }, long),
          ...Array.from({ length: 4 }, (_, i) => callTool(worker.client, 'write_file', { path: `round-${round}-${i}.txt`, content: marker })),
          callTool(asker.client, 'write_file', { path: `asked-${round}.txt`, content: 'x' }, long)
        ].map((call) => call.catch(() => undefined))
        await new Promise((resolve) => setTimeout(resolve, 300 + Math.floor(Math.random() * 2500)))
        pendingBefore = pendingIds()
        const sandboxed = liveProcessesMatching(marker)
        cgroupsBefore = cgroupDirsOf(sandboxed)
        if (sandboxed.length > 0) caught.running++
        if (cgroupsBefore.length > 0) caught.cgroups++
        if (pendingBefore.length > 0) caught.waiting++
        if ((await containersOf(home.path)).length > 0) caught.container++
        if (liveProcessesMatching(upstreamMarker).length > 0) caught.upstream++
        served.child.kill('SIGKILL')
        await new Promise((resolve) => served.child.once('exit', resolve))
        await Promise.all(agents.map((agent) => agent.close().catch(() => undefined)))
        await Promise.all(inFlight)
      }
      // One last start recovers the last crash.
      const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home.path])
      try {
        expect(JSON.parse(runAirlock(['history', '--status', 'running', '--json', '--home', home.path]).stdout)).toEqual([])
        expect(liveProcessesMatching(`airlock-crash-loop-${process.pid}-`)).toEqual([])
        expect(liveProcessesMatching(upstreamMarker)).toEqual([])
        expect(await containersOf(home.path)).toEqual([])
        const interrupted = JSON.parse(runAirlock(['history', '--status', 'interrupted', '--json', '--limit', '500', '--home', home.path]).stdout) as unknown[]
        expect(interrupted.length).toBeGreaterThan(0)
        for (const kind of ['running', 'waiting', 'container', 'upstream'] as const)
          expect(caught[kind], `${kind}: ${JSON.stringify(caught)}`).toBeGreaterThanOrEqual(iterations / 4)
        if (readdirSync('/sys/fs/cgroup').includes('pids') && process.getuid?.() === 0)
          expect(caught.cgroups, JSON.stringify(caught)).toBeGreaterThanOrEqual(iterations / 4)
        expect(runAirlock(['audit', 'verify', '--home', home.path]).code).toBe(0)
      } finally {
        await served.stop()
      }
      // And the second home still has its command and container.
      expect(liveProcessesMatching(neighbourMarker).length).toBeGreaterThan(0)
      expect((await containersOf(neighbour.path)).map((c) => c.Id)).toEqual(neighbourContainers)
    } finally {
      await neighbourAgent.close().catch(() => undefined)
      await other.stop()
      await neighbourCall
    }
    console.log(`crash loop: ${JSON.stringify(caught)} of ${iterations} kills caught work in flight`)
  }, 900_000)
})
