import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { skipReasonFor } from '../../../../test/support/components'
import { ensureTestImages } from '../../../../test/support/docker-images'
import { ExecutionResourceManager } from '../../core'
import { BubblewrapProvider } from '../../providers/bubblewrap/bubblewrap-provider'
import { checkBubblewrapHost } from '../../providers/bubblewrap/bubblewrap-probe'
import { DockerProvider, checkEngine, createDockerClient } from '../../providers'
import { TrustedLocalProvider } from '../../providers/trusted-local/trusted-local-provider'
import { GvisorProvider } from '../../providers/gvisor/gvisor-provider'
import { checkGvisorHost } from '../../providers/gvisor/gvisor-host'
import { runDoctor } from './doctor'

// The doctor against the real providers of this machine: bubblewrap and docker must come out with
// every claimed axis verified by attempts that held, trusted_local reported unisolated and never
// attacked, and nothing of the stage left behind. (A provider that lies about its isolation is in
// test/security/attack-doctor-lying-provider.test.ts.)

const bwrap = await checkBubblewrapHost()
const bwrapSkip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const docker = createDockerClient()
const engine = await checkEngine(docker)
const dockerSkip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })
const gvisorHome = makeTempDir('airlock-doctor-gvisor-', { outsideTmp: true })
const gvisor = await checkGvisorHost({ home: gvisorHome.path })
const gvisorSkip = skipReasonFor('gVisor (runsc)', { available: gvisor.ok, reason: gvisor.ok ? '' : gvisor.reason })

let home: ReturnType<typeof makeTempDir>
beforeAll(() => {
  home = makeTempDir('airlock-doctor-', { outsideTmp: true })
})
afterAll(() => {
  home.remove()
  gvisorHome.remove()
})

const stageDir = () => join(home.path, 'doctor')
const axesOf = (report: Awaited<ReturnType<typeof runDoctor>>, providerId: string) =>
  Object.fromEntries(report.providers.find((provider) => provider.providerId === providerId)!.axes.map((axis) => [axis.axis, axis.status]))

describe('doctor', () => {
  it.skipIf(bwrapSkip !== undefined)('verifies every axis bubblewrap claims here, and reports trusted_local unisolated without attacking it', async () => {
    const manager = new ExecutionResourceManager().registerProvider(new BubblewrapProvider()).registerProvider(new TrustedLocalProvider())
    const report = await runDoctor({ manager, stageDir: stageDir() })
    const bubblewrap = report.providers.find((provider) => provider.providerId === 'bubblewrap')!
    expect(bubblewrap.available).toBe(true)
    expect(bubblewrap.checks.filter((check) => check.outcome !== 'held')).toEqual([])
    expect(axesOf(report, 'bubblewrap')).toEqual({
      processContained: 'verified',
      hostFilesystemRestricted: 'verified',
      privilegeEscalationBlocked: 'verified',
      syscallsRestricted: 'verified',
      networkOff: 'verified'
    })
    expect(bubblewrap.checks.length).toBeGreaterThanOrEqual(14)
    const trusted = report.providers.find((provider) => provider.providerId === 'trusted_local')!
    expect(trusted.checks).toEqual([])
    expect(new Set(trusted.axes.map((axis) => axis.status))).toEqual(new Set(['not_claimed']))
    expect(trusted.fix).toMatch(/without isolation/)
    // The stage is gone, and the handle with it.
    expect(readdirSync(stageDir())).toEqual([])
    expect(manager.list()).toEqual([])
    expect(Date.parse(report.finishedAt)).toBeGreaterThanOrEqual(Date.parse(report.startedAt))
  })

  it.skipIf(gvisorSkip !== undefined)('verifies every axis gvisor claims here, in a sandbox with a kernel of its own', async () => {
    const manager = new ExecutionResourceManager().registerProvider(new GvisorProvider({ home: gvisorHome.path }))
    const report = await runDoctor({ manager, stageDir: stageDir() })
    const result = report.providers.find((provider) => provider.providerId === 'gvisor')!
    expect(result).toMatchObject({ available: true, mechanism: 'gvisor' })
    expect(result.checks.filter((check) => check.outcome !== 'held')).toEqual([])
    expect(axesOf(report, 'gvisor')).toEqual({
      processContained: 'verified',
      hostFilesystemRestricted: 'verified',
      privilegeEscalationBlocked: 'verified',
      syscallsRestricted: 'verified',
      networkOff: 'verified'
    })
    expect(result.checks.length).toBeGreaterThanOrEqual(14)
    expect(readdirSync(stageDir())).toEqual([])
    expect(manager.list()).toEqual([])
  })

  it.skipIf(dockerSkip !== undefined)(
    'verifies every axis docker claims here, in a container of a provisioned image',
    async () => {
      await ensureTestImages(docker)
      const manager = new ExecutionResourceManager().registerProvider(new DockerProvider({ home: home.path, docker }))
      const report = await runDoctor({ manager, stageDir: stageDir() })
      const result = report.providers[0]!
      expect(result.checks.filter((check) => check.outcome !== 'held')).toEqual([])
      expect(axesOf(report, 'docker')).toEqual({
        processContained: 'verified',
        hostFilesystemRestricted: 'verified',
        privilegeEscalationBlocked: 'verified',
        syscallsRestricted: 'verified',
        networkOff: 'verified'
      })
      expect(manager.list()).toEqual([])
    },
    600_000
  )

  it('says why a provider cannot be checked and how to fix it, and verifies nothing it could not try', async () => {
    // A Docker engine that is not there: the probe says so, every claimed axis stays unverified.
    const manager = new ExecutionResourceManager().registerProvider(
      new DockerProvider({ home: home.path, docker: createDockerClient({ socketPath: join(home.path, 'no-engine.sock') }) })
    )
    const report = await runDoctor({ manager, stageDir: stageDir() })
    const result = report.providers[0]!
    expect(result.available).toBe(false)
    expect(result.fix).toMatch(/Start the Docker engine/)
    expect(result.axes.every((axis) => axis.status !== 'verified')).toBe(true)
    // Its stage was made and removed again: nothing of it is left.
    expect(readdirSync(stageDir())).toEqual([])
  })
})
