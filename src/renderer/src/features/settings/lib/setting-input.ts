import { settingDefinitions, type SettingKey } from '@shared/settings'

/** A typed value for a setting, or the message to show at its field. */
export type ParsedSetting = { ok: true; value: unknown } | { ok: false; error: string }

/** Reads a whole-number field and checks it against the setting's own schema (main checks again). */
export function parseNumberSetting(key: SettingKey, text: string): ParsedSetting {
  const trimmed = text.trim()
  if (!/^-?\d+$/.test(trimmed)) return { ok: false, error: 'Enter a whole number.' }
  const value = Number(trimmed)
  const parsed = settingDefinitions[key].schema.safeParse(value)
  return parsed.success ? { ok: true, value } : { ok: false, error: parsed.error.issues.map((issue) => issue.message).join('; ') }
}

/** Checks one environment-variable name for `policy.secret_env_vars`; undefined when fine. */
export function envNameError(name: string, existing: readonly string[]): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) return 'An environment variable name: letters, digits and _, not starting with a digit.'
  if (existing.includes(name)) return `${name} is already listed.`
  return undefined
}

/** A duration in seconds for people (`600 s (10 min)`). */
export function describeSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds} s`
  if (seconds < 3600) return `${seconds} s (${+(seconds / 60).toFixed(1)} min)`
  return `${seconds} s (${+(seconds / 3600).toFixed(1)} h)`
}
