import type { SettingKey, SettingView } from '@shared/settings'

/** The view of one setting, if loaded. */
export function selectSetting(state: { settings: readonly SettingView[] }, key: SettingKey): SettingView | undefined {
  return state.settings.find((item) => item.key === key)
}
