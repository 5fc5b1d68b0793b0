import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { it } from 'vitest'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { callTool, connectAgent, startServeWithGateway } from '../test/support/mcp-gateway-client'
import { runAirlock } from '../test/support/run-cli'
import { makeTempDir } from '../test/support/temp-home'

/**
 * Where `airlock serve`'s main thread spends its time per agent call (issue 29): `serve` runs
 * under `--cpu-prof`, an SDK client in this process makes `calls` sequential `run_command true`
 * calls (within the default 600 a minute), and the profile is summed by function (self time) and by where the code lives. Prints
 * the table; records nothing (figures are in gateway.bench.ts). Run it alone:
 * `npx vitest run --config bench/vitest.config.ts bench/gateway-profile.bench.ts`.
 */
const calls = 150

it('gateway profile: main-thread CPU per run_command call', async () => {
  const bwrap = await checkBubblewrapHost()
  if (!bwrap.ok) return console.log(`not profiled: ${bwrap.reason}`)
  const home = makeTempDir('airlock-bench-profile-', { outsideTmp: true })
  const profiles = mkdtempSync(join(tmpdir(), 'airlock-profile-'))
  try {
    const profile = join(profiles, 'profile.json')
    writeFileSync(profile, JSON.stringify({ capabilities: ['shell'], ask: 'never' }))
    const created = runAirlock(['agent', 'create', 'profiled', '--json', '--home', home.path, '--profile', profile])
    if (created.code !== 0) throw new Error(created.stderr)
    const { token } = JSON.parse(created.stdout) as { token: string }
    const served = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home.path], {
      prefix: ['sh', '-c', `exec "$0" --cpu-prof --cpu-prof-interval=${process.env.AIRLOCK_PROFILE_INTERVAL_US ?? 1000} --cpu-prof-dir=${profiles} "$@"`]
    })
    const agent = await connectAgent(served.gatewayLine.replace('Agent gateway: ', ''), token)
    try {
      for (let i = 0; i < 10; i++) await callTool(agent.client, 'run_command', { command: 'true' })
      for (let i = 0; i < calls; i++) {
        const result = await callTool(agent.client, 'run_command', { command: 'true' })
        if (result.structuredContent.status !== 'success') throw new Error(JSON.stringify(result.structuredContent).slice(0, 300))
      }
    } finally {
      await agent.close()
      await served.stop()
    }
    const file = readdirSync(profiles).find((name) => name.includes(`.${served.child.pid}.`) && name.endsWith('.cpuprofile'))
    if (!file) throw new Error('serve wrote no profile')
    console.log(summary(JSON.parse(readFileSync(join(profiles, file), 'utf8')) as CpuProfile, calls + 10))
    // AIRLOCK_PROFILE_KEEP=path keeps the raw profile (open it in Chrome DevTools' Performance panel).
    if (process.env.AIRLOCK_PROFILE_KEEP) copyFileSync(join(profiles, file), process.env.AIRLOCK_PROFILE_KEEP)
  } finally {
    rmSync(profiles, { recursive: true, force: true })
    home.remove()
  }
}, 300_000)

type CpuProfile = { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] }

/** Self time per function and per place (a package, a file of out/), in ms per call, busiest first. */
function summary(profile: CpuProfile, perCalls: number): string {
  const selfUs = new Map<number, number>()
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)))
  const byFunction = new Map<string, number>()
  const byPlace = new Map<string, number>()
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0
    if (us === 0) continue
    const { functionName, url, lineNumber } = node.callFrame
    const place = url.includes('node_modules/') ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1') : url.replace(/.*\/out\//, 'out/') || functionName
    byPlace.set(place, (byPlace.get(place) ?? 0) + us)
    if (functionName === '(idle)') continue
    const key = `${functionName || '(anonymous)'} ${place}:${lineNumber + 1}`
    byFunction.set(key, (byFunction.get(key) ?? 0) + us)
  }
  const rows = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, us]) => `${(us / 1000 / perCalls).toFixed(2).padStart(7)} ms  ${key}`)
  return ['per call, by place:', ...rows(byPlace, 20), '', 'per call, by function:', ...rows(byFunction, 40)].join('\n')
}
