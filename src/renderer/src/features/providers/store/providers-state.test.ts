import { settingAssignmentSchema, settingDefinitions, type SettingView } from '@shared/settings'
import { fail, ok, type Result } from '@shared/result'
import { describe, expect, it } from 'vitest'
import type { DoctorReport } from '@shared/ipc/doctor'
import type { ProvidersClient } from './client'
import { createProvidersStore } from './providers-state'

// A stand-in for the host at the contract boundary: it keeps the setting and validates each
// assignment with the same shared schema main uses.
function fakeHost(initial: unknown) {
  let stored = initial
  const calls: unknown[] = []
  const view = (): SettingView => ({
    key: 'code_execution.providers',
    value: stored,
    defaultValue: settingDefinitions['code_execution.providers'].defaultValue,
    isDefault: false,
    description: ''
  })
  const provisionAnswers: Result<{ started: true }>[] = []
  const doctorReports: DoctorReport[] = []
  const client = {
    settings: {
      get: async () => ok(view()),
      set: async (input: { key: string; value: unknown }) => {
        calls.push(input.value)
        const parsed = settingAssignmentSchema.safeParse(input)
        if (!parsed.success) return fail('validation_failed', parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '))
        stored = input.value
        return ok(view())
      }
    },
    doctor: {
      latest: async () => ok({ report: doctorReports.at(-1) ?? null }),
      run: async () => {
        const report = { startedAt: '2026-12-01T00:00:00.000Z', finishedAt: '2026-12-01T00:00:05.000Z', machine: 'test', providers: [] }
        doctorReports.push(report)
        return ok(report)
      }
    },
    providers: {
      list: async () => ok({ providers: [], codeExecutionOrder: [] }),
      images: async () => ok({ engine: { ok: true }, images: [], languages: ['python', 'go'] }),
      provisionImage: async () => provisionAnswers.shift() ?? ok({ started: true as const })
    }
  } as unknown as ProvidersClient
  return { client, calls, stored: () => stored, provisionAnswers }
}

describe('providers store', () => {
  it("saves a move with every candidate's config kept", async () => {
    const host = fakeHost(['bubblewrap', { providerId: 'docker', config: { profile: 'strict' } }])
    const store = createProvidersStore(host.client)
    await store.getState().loadOrder()
    expect(await store.getState().move(1, 0)).toBe(true)
    expect(host.stored()).toEqual([{ providerId: 'docker', config: { profile: 'strict' } }, 'bubblewrap'])
    expect(store.getState().candidates.map((c) => c.providerId)).toEqual(['docker', 'bubblewrap'])
  })

  it('puts the strongest isolation first with one click, configs kept and the rest after', async () => {
    const host = fakeHost(['bubblewrap', 'trusted_local', { providerId: 'docker', config: { profile: 'strict' } }])
    const store = createProvidersStore(host.client)
    await store.getState().loadOrder()
    expect(await store.getState().applyPreset(['gvisor', 'docker', 'bubblewrap'])).toBe(true)
    expect(host.stored()).toEqual(['gvisor', { providerId: 'docker', config: { profile: 'strict' } }, 'bubblewrap', 'trusted_local'])
  })

  it("reverts and shows the host's message when a change is refused", async () => {
    const host = fakeHost(['bubblewrap'])
    const store = createProvidersStore(host.client)
    await store.getState().loadOrder()
    expect(await store.getState().remove(0)).toBe(false) // the last candidate stays
    expect(await store.getState().add('x'.repeat(101))).toBe(false)
    expect(store.getState().orderError).toMatch(/value\.1/)
    expect(store.getState().candidates).toEqual([{ providerId: 'bubblewrap' }])
  })

  it("sets and clears one candidate's config", async () => {
    const host = fakeHost(['bubblewrap', 'docker'])
    const store = createProvidersStore(host.client)
    await store.getState().loadOrder()
    await store.getState().setConfig(1, { language: 'python' })
    expect(host.stored()).toEqual(['bubblewrap', { providerId: 'docker', config: { language: 'python' } }])
    await store.getState().setConfig(1, undefined)
    expect(host.stored()).toEqual(['bubblewrap', 'docker'])
  })

  it('follows a provisioning from start to its end and refreshes the images', async () => {
    const host = fakeHost(['docker'])
    const store = createProvidersStore(host.client)
    await store.getState().provision('python', true)
    expect(store.getState().progress).toMatchObject({ state: 'running', language: 'python' })
    store.getState().receiveProgress({ image: 'airlock/python:latest', stage: 'downloading packages', percent: 30 })
    expect(store.getState().progress).toMatchObject({ percent: 30, language: 'python', state: 'running' })
    store.getState().receiveProgress({ image: 'airlock/python:latest', stage: 'failed: mirror unreachable' })
    expect(store.getState().progress).toMatchObject({ state: 'failed', error: 'mirror unreachable' })
    expect(store.getState().provisioningLanguage).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(store.getState().images?.languages).toEqual(['python', 'go'])
  })

  it('shows why a provisioning could not start', async () => {
    const host = fakeHost(['docker'])
    host.provisionAnswers.push(fail('provisioning_busy', 'python is being provisioned; one at a time'))
    const store = createProvidersStore(host.client)
    expect(await store.getState().provision('go', false)).toBe(false)
    expect(store.getState().provisionError).toBe('python is being provisioned; one at a time')
    expect(store.getState().progress).toBeUndefined()
  })
})

describe('providers store: candidate config', () => {
  it('saves a config without touching the banner, and says when the candidate is gone', async () => {
    const host = fakeHost([{ providerId: 'docker', config: { profile: 'strict' } }])
    const store = createProvidersStore(host.client)
    await store.getState().loadOrder()
    expect(await store.getState().setConfig(3, { a: 1 })).toBe('That candidate is no longer in the order.')
    expect(await store.getState().setConfig(0, { profile: 'developer' })).toBeUndefined()
    expect(store.getState().orderError).toBeUndefined()
    expect(host.stored()).toEqual([{ providerId: 'docker', config: { profile: 'developer' } }])
  })

  it('loads the last doctor report, runs the doctor, and follows runs started elsewhere', async () => {
    const host = fakeHost(['bubblewrap'])
    const store = createProvidersStore(host.client)
    await store.getState().loadDoctor()
    expect(store.getState()).toMatchObject({ doctor: null, doctorStatus: 'ready' })
    const running = store.getState().runDoctor()
    expect(store.getState().doctorStatus).toBe('running')
    await running
    expect(store.getState()).toMatchObject({ doctorStatus: 'ready', doctor: { machine: 'test' } })
    // Another console started a run: this one shows it running until the end, then reads the report.
    store.getState().doctorChanged({ running: true })
    expect(store.getState().doctorStatus).toBe('running')
    await store.getState().loadDoctor()
    expect(store.getState().doctorStatus).toBe('running')
    store.getState().doctorChanged({ running: false })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(store.getState().doctorStatus).toBe('ready')
  })
})
