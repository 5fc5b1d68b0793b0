import type { SettingView } from '@shared/settings'
import type { SettingKey } from '@shared/settings'
import { create } from 'zustand'
import { airlock, unwrap } from '../../../lib/airlock-client'

/** The settings feature's state: the list from main, load status, and per-key save errors. */
export type SettingsState = {
  settings: SettingView[]
  status: 'idle' | 'loading' | 'ready' | 'error'
  loadError?: string
  saveErrors: Partial<Record<SettingKey, string>>
  load(): Promise<void>
  save(key: SettingKey, value: unknown): Promise<boolean>
  reset(key: SettingKey): Promise<void>
  applyChanged(view: SettingView): void
}

/** The settings store; main owns the data, this mirrors it and refreshes on `settings.changed`. */
export const useSettingsStore = create<SettingsState>((set, get) => ({
  settings: [],
  status: 'idle',
  saveErrors: {},
  async load() {
    set({ status: 'loading', loadError: undefined })
    try {
      set({ settings: await unwrap(airlock.settings.list()), status: 'ready' })
    } catch (error) {
      set({ status: 'error', loadError: (error as Error).message })
    }
  },
  async save(key, value) {
    const result = await airlock.settings.set({ key, value })
    set({ saveErrors: { ...get().saveErrors, [key]: result.ok ? undefined : result.error.message } })
    if (result.ok) get().applyChanged(result.value)
    return result.ok
  },
  async reset(key) {
    const result = await airlock.settings.reset({ key })
    set({ saveErrors: { ...get().saveErrors, [key]: result.ok ? undefined : result.error.message } })
    if (result.ok) get().applyChanged(result.value)
  },
  applyChanged(view) {
    set({ settings: get().settings.map((item) => (item.key === view.key ? view : item)) })
  }
}))

airlock.settings.onChanged((view) => useSettingsStore.getState().applyChanged(view))

/** The view of one setting, if loaded. */
export function selectSetting(state: Pick<SettingsState, 'settings'>, key: SettingKey): SettingView | undefined {
  return state.settings.find((item) => item.key === key)
}
