import type { ProviderView } from '@shared/ipc'
import type { ResourceCandidate } from '@shared/resources'

/** One entry of the `code_execution.providers` order: a provider id and the config merged over a requirement's for it. */
export type Candidate = { providerId: string; config?: Record<string, unknown> }

/** The setting's value (ids or `{providerId, config}`) as candidates; anything else in the list is dropped. */
export function candidatesFromSetting(value: unknown): Candidate[] {
  if (!Array.isArray(value)) return []
  const candidates: Candidate[] = []
  for (const entry of value) {
    if (typeof entry === 'string') candidates.push({ providerId: entry })
    else if (entry && typeof entry === 'object' && typeof (entry as Candidate).providerId === 'string') {
      const { providerId, config } = entry as Candidate
      candidates.push(config && typeof config === 'object' && !Array.isArray(config) ? { providerId, config } : { providerId })
    }
  }
  return candidates
}

/** Candidates back to the setting's shape: a bare id when there is no config, else `{providerId, config}` (config kept as is). */
export function candidatesToSetting(candidates: readonly Candidate[]): ResourceCandidate[] {
  return candidates.map((candidate) =>
    candidate.config && Object.keys(candidate.config).length > 0 ? { providerId: candidate.providerId, config: candidate.config } : candidate.providerId
  )
}

/** The "strongest first" preset: a separate kernel (gVisor), then a container, then a namespace sandbox. */
export const strongestFirst = ['gvisor', 'docker', 'bubblewrap'] as const

/**
 * The order with the preset's providers first, in the preset's order, each keeping the config it
 * had; the preset's providers not in the list yet are added (without config), and the rest keep
 * their order after them.
 */
export function presetOrder(candidates: readonly Candidate[], preset: readonly string[]): Candidate[] {
  const first = preset.map((providerId) => candidates.find((candidate) => candidate.providerId === providerId) ?? { providerId })
  return [...first, ...candidates.filter((candidate) => !preset.includes(candidate.providerId))]
}

/** The list with the entry at `from` moved to `to` (both clamped); the same array when nothing moves. */
export function moveCandidate<T>(list: readonly T[], from: number, to: number): T[] {
  const target = Math.max(0, Math.min(list.length - 1, to))
  if (from < 0 || from >= list.length || from === target) return [...list]
  const next = [...list]
  const [moved] = next.splice(from, 1)
  next.splice(target, 0, moved as T)
  return next
}

/** What the config editor's text means: no config (empty), a JSON object, or why it is not one. */
export type ParsedConfig = { ok: true; config?: Record<string, unknown> } | { ok: false; error: string }

/** Reads the config editor's text: empty means no config; otherwise it must be one JSON object. */
export function parseConfigText(text: string): ParsedConfig {
  if (text.trim() === '') return { ok: true }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${(error as Error).message}` }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'The config must be a JSON object, e.g. {"profile": "strict"}.' }
  }
  return Object.keys(value).length === 0 ? { ok: true } : { ok: true, config: value as Record<string, unknown> }
}

/** The config as the editor shows it: pretty JSON, or empty for none. */
export function configText(config: Record<string, unknown> | undefined): string {
  return config && Object.keys(config).length > 0 ? JSON.stringify(config, null, 2) : ''
}

/** Registered providers that serve `code_execution` and are not in the order yet (what "Add" offers). */
export function addableProviders(providers: readonly ProviderView[], candidates: readonly Candidate[]): string[] {
  const inOrder = new Set(candidates.map((candidate) => candidate.providerId))
  return providers.filter((p) => p.kinds.includes('code_execution') && !inOrder.has(p.providerId)).map((p) => p.providerId)
}

/** Config keys each built-in code-execution provider reads, for the editor's hint (main validates). */
export const knownConfigKeys: Record<string, string> = {
  docker:
    'image (an image reference) or language (python, nodejs, bash, go, cpp: its Airlock image), profile (strict | developer | ci), pullApproved, extraArgs (extra docker run arguments; any that weaken isolation turn the affected axes false).',
  bubblewrap: 'bwrapPath (absolute path of bwrap), readOnlyBinds (absolute host paths bound read-only).',
  trusted_local: 'allowUnsafeLocal (true authorises running on the host without isolation).'
}
