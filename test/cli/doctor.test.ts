import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { doctorReportSchema } from '../../src/shared/ipc/doctor'
import { createHost } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// `airlock doctor [--json]` and the `doctor` contract on a fresh home, through the real CLI
// process and the real host: the report names every code-execution provider, bubblewrap's axes
// come out verified, the report is stored, and the console's `doctor.latest` reads the CLI's run.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
let home: ReturnType<typeof makeTempDir>
beforeAll(() => {
  home = makeTempDir('airlock-cli-doctor-', { outsideTmp: true })
})
afterAll(() => home.remove())

describe.skipIf(skip !== undefined)('airlock doctor', () => {
  it('prints each provider with its axes and a summary line, and stores the report for the console', async () => {
    const { code, stdout, stderr } = runAirlock(['doctor', '--home', home.path], {})
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const lines = stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^Airlock doctor · /)
    expect(lines).toContain('bubblewrap  available · bubblewrap')
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}processContained +verified {2}3\/3 attempts held$/),
        expect.stringMatching(/^ {2}networkOff +verified {2}1\/1 attempts held$/)
      ])
    )
    expect(lines.some((line) => line.startsWith('trusted_local  available, unisolated'))).toBe(true)
    expect(lines.some((line) => /^gvisor {2}(available|unavailable)/.test(line))).toBe(true)
    expect(lines.at(-1)).toMatch(/^doctor: 4 providers · \d+ axes verified · 0 failed · \d+ unverified$/)

    const host = createHost({ home: home.path, logError: () => undefined })
    try {
      await host.recovered
      const latest = (await host.dispatch('airlock:doctor:latest', {}, { transport: 'websocket' })) as { ok: true; value: { report: unknown } }
      expect(latest.ok).toBe(true)
      const report = doctorReportSchema.parse(latest.value.report)
      expect(report.providers.map((provider) => provider.providerId).sort()).toEqual(['bubblewrap', 'docker', 'gvisor', 'trusted_local'])
    } finally {
      await host.dispose()
    }
  }, 120_000)

  it('--json prints the report itself; extra arguments are a usage error', () => {
    const { code, stdout } = runAirlock(['doctor', '--json', '--home', home.path], {})
    expect(code).toBe(0)
    const report = doctorReportSchema.parse(JSON.parse(stdout))
    expect(report.providers.find((provider) => provider.providerId === 'bubblewrap')!.axes.every((axis) => axis.status === 'verified')).toBe(true)
    const bad = runAirlock(['doctor', 'now', '--home', home.path], {})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/doctor takes no arguments/)
  }, 120_000)
})
