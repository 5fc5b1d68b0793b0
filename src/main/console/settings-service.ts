import { settingDefinitions, settingKeys, type SettingKey, type SettingValue, type SettingView } from '@shared/settings'
import type { SettingsRepository } from '../store'

/** Reads and changes the operator's settings; stored values are re-validated on read. */
export class SettingsService {
  private readonly listeners = new Set<(view: SettingView) => void>()

  constructor(private readonly repository: SettingsRepository) {}

  /** The effective value of a setting (stored, else default). Also the core's `SettingsReader`. */
  get<K extends SettingKey>(key: K): SettingValue<K>
  get(key: string): unknown
  get(key: string): unknown {
    return this.view(key as SettingKey).value
  }

  /** A setting with its default and whether it is overridden. */
  view(key: SettingKey): SettingView {
    const definition = settingDefinitions[key]
    const stored = this.repository.read(key)
    // A stored value that no longer validates (hand-edited DB, older build) falls back to the default.
    const parsed = stored === undefined ? undefined : definition.schema.safeParse(stored)
    const isDefault = !parsed?.success
    return {
      key,
      value: isDefault ? definition.defaultValue : parsed.data,
      defaultValue: definition.defaultValue,
      isDefault,
      description: definition.description
    }
  }

  /** Every known setting, in display order. */
  list(): SettingView[] {
    return settingKeys.map((key) => this.view(key))
  }

  /** Stores a value already validated against the key's schema, and tells subscribers. */
  set<K extends SettingKey>(key: K, value: SettingValue<K>): SettingView {
    const parsed = settingDefinitions[key].schema.parse(value)
    this.repository.write(key, parsed)
    return this.changed(key)
  }

  /** Forgets the stored value so the default applies again. */
  reset(key: SettingKey): SettingView {
    this.repository.remove(key)
    return this.changed(key)
  }

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: (view: SettingView) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private changed(key: SettingKey): SettingView {
    const view = this.view(key)
    for (const listener of this.listeners) listener(view)
    return view
  }
}
