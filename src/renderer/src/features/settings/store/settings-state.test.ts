import { settingAssignmentSchema, settingDefinitions, settingKeys, type SettingKey, type SettingView } from '@shared/settings'
import { fail, ok } from '@shared/result'
import { describe, expect, it } from 'vitest'
import { selectSetting } from '../lib/select-setting'
import type { SettingsClient } from './client'
import { createSettingsStore } from './settings-state'

// A stand-in for the host at the contract boundary: stored values checked with the shared schema.
function fakeHost() {
  const values = new Map<SettingKey, unknown>()
  const view = (key: SettingKey): SettingView => {
    const defaultValue = settingDefinitions[key].defaultValue
    return {
      key,
      value: values.has(key) ? values.get(key) : defaultValue,
      defaultValue,
      isDefault: !values.has(key),
      description: settingDefinitions[key].description
    }
  }
  const client = {
    settings: {
      list: async () => ok(settingKeys.map(view)),
      set: async (input: { key: SettingKey; value: unknown }) => {
        const parsed = settingAssignmentSchema.safeParse(input)
        if (!parsed.success) return fail('validation_failed', `input.${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`)
        values.set(input.key, input.value)
        return ok(view(input.key))
      },
      reset: async ({ key }: { key: SettingKey }) => {
        values.delete(key)
        return ok(view(key))
      }
    }
  } as unknown as SettingsClient
  return client
}

describe('settings store', () => {
  it("saves, shows the host's refusal at the key, and resets", async () => {
    const store = createSettingsStore(fakeHost())
    await store.getState().load()
    expect(selectSetting(store.getState(), 'console.port')?.value).toBe(7410)
    expect(await store.getState().save('console.port', 8080)).toBe(true)
    expect(selectSetting(store.getState(), 'console.port')).toMatchObject({ value: 8080, isDefault: false })
    expect(await store.getState().save('console.port', 'eighty')).toBe(false)
    expect(store.getState().saveErrors['console.port']).toMatch(/^input\.value/)
    expect(selectSetting(store.getState(), 'console.port')?.value).toBe(8080)
    expect(await store.getState().reset('console.port')).toBe(true)
    expect(store.getState().saveErrors['console.port']).toBeUndefined()
    expect(selectSetting(store.getState(), 'console.port')).toMatchObject({ value: 7410, isDefault: true })
    expect(store.getState().saving).toEqual({})
  })

  it('follows a change pushed by main', async () => {
    const store = createSettingsStore(fakeHost())
    await store.getState().load()
    store.getState().applyChanged({ key: 'access_control_policy.auto_allow', value: true, defaultValue: false, isDefault: false, description: '' })
    expect(selectSetting(store.getState(), 'access_control_policy.auto_allow')?.value).toBe(true)
  })
})
