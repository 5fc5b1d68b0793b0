import type { SettingKey, SettingView } from '@shared/settings'
import type { StateCreator } from 'zustand'
import type { SettingsClient } from './client'
import type { SettingsState } from './settings-state'

/** The settings from main, load status, and per-key save errors (the host's message). */
export type SettingsSlice = {
  settings: SettingView[]
  status: 'idle' | 'loading' | 'ready' | 'error'
  loadError?: string
  saveErrors: Partial<Record<SettingKey, string>>
  /** Keys being saved right now. */
  saving: Partial<Record<SettingKey, true>>
  load(): Promise<void>
  /** Saves one setting; resolves to true when main accepted it. */
  save(key: SettingKey, value: unknown): Promise<boolean>
  reset(key: SettingKey): Promise<boolean>
  clearSaveError(key: SettingKey): void
  applyChanged(view: SettingView): void
}

/** The settings slice; main validates every change and pushes `settings.changed` to every console. */
export const createSettingsSlice =
  (client: SettingsClient): StateCreator<SettingsState, [], [], SettingsSlice> =>
  (set, get) => {
    const settle = (key: SettingKey, result: Awaited<ReturnType<SettingsClient['settings']['set']>>): boolean => {
      const { [key]: _done, ...saving } = get().saving
      set({ saving, saveErrors: { ...get().saveErrors, [key]: result.ok ? undefined : result.error.message } })
      if (result.ok) get().applyChanged(result.value)
      return result.ok
    }
    return {
      settings: [],
      status: 'idle',
      saveErrors: {},
      saving: {},
      async load() {
        set({ status: get().status === 'ready' ? 'ready' : 'loading', loadError: undefined })
        const result = await client.settings.list({})
        if (result.ok) set({ settings: result.value, status: 'ready' })
        else set({ status: 'error', loadError: result.error.message })
      },
      async save(key, value) {
        set({ saving: { ...get().saving, [key]: true } })
        return settle(key, await client.settings.set({ key, value }))
      },
      async reset(key) {
        set({ saving: { ...get().saving, [key]: true } })
        return settle(key, await client.settings.reset({ key }))
      },
      clearSaveError(key) {
        if (get().saveErrors[key] !== undefined) set({ saveErrors: { ...get().saveErrors, [key]: undefined } })
      },
      applyChanged(view) {
        const known = get().settings.some((item) => item.key === view.key)
        set({ settings: known ? get().settings.map((item) => (item.key === view.key ? view : item)) : [...get().settings, view] })
      }
    }
  }
