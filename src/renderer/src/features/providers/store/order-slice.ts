import type { StateCreator } from 'zustand'
import { candidatesFromSetting, candidatesToSetting, moveCandidate, presetOrder, type Candidate } from '../lib/candidates'
import { orderSettingKey, type ProvidersClient } from './client'
import type { ProvidersState } from './providers-state'

/** The ordered code-execution candidates, read from and saved to the setting with their config. */
export type OrderSlice = {
  candidates: Candidate[]
  orderStatus: 'idle' | 'loading' | 'ready' | 'error'
  orderError?: string
  /** True while a change is being saved (buttons wait; a drop never races a save). */
  orderSaving: boolean
  loadOrder(): Promise<void>
  move(from: number, to: number): Promise<boolean>
  /** Puts the preset's providers first, in its order (configs kept), and saves at once. */
  applyPreset(preset: readonly string[]): Promise<boolean>
  /** Saves one candidate's config; resolves to the host's message when refused (the form shows it inline). */
  setConfig(index: number, config: Record<string, unknown> | undefined): Promise<string | undefined>
  add(providerId: string): Promise<boolean>
  remove(index: number): Promise<boolean>
  /** A `settings.changed` for the order (another console, the CLI): take the host's value. */
  applyOrderSetting(value: unknown): void
  dismissOrderError(): void
}

/** The order slice; every change is saved through `settings.set`, and reverted with the host's message if refused. */
export const createOrderSlice =
  (client: ProvidersClient): StateCreator<ProvidersState, [], [], OrderSlice> =>
  (set, get) => {
    // Optimistic: the list moves at once; a refusal puts it back. `inline` leaves the message to the caller.
    const saveOrFail = async (next: Candidate[], inline = false): Promise<string | undefined> => {
      const previous = get().candidates
      set({ candidates: next, orderSaving: true, orderError: undefined })
      const result = await client.settings.set({ key: orderSettingKey, value: candidatesToSetting(next) })
      if (!result.ok) {
        set({ candidates: previous, orderSaving: false, ...(inline ? {} : { orderError: result.error.message }) })
        return result.error.message
      }
      set({ candidates: candidatesFromSetting(result.value.value), orderSaving: false })
      return undefined
    }
    const save = async (next: Candidate[]) => (await saveOrFail(next)) === undefined
    return {
      candidates: [],
      orderStatus: 'idle',
      orderSaving: false,
      async loadOrder() {
        set({ orderStatus: 'loading', orderError: undefined })
        const result = await client.settings.get({ key: orderSettingKey })
        if (result.ok) set({ candidates: candidatesFromSetting(result.value.value), orderStatus: 'ready' })
        else set({ orderStatus: 'error', orderError: result.error.message })
      },
      async move(from, to) {
        const { candidates, orderSaving } = get()
        if (orderSaving) return false
        const next = moveCandidate(candidates, from, to)
        if (next.every((candidate, index) => candidate === candidates[index])) return true
        return save(next)
      },
      async applyPreset(preset) {
        const { candidates, orderSaving } = get()
        if (orderSaving) return false
        const next = presetOrder(candidates, preset)
        if (next.length === candidates.length && next.every((candidate, index) => candidate === candidates[index])) return true
        return save(next)
      },
      async setConfig(index, config) {
        const candidates = get().candidates
        if (!candidates[index]) return 'That candidate is no longer in the order.'
        return saveOrFail(
          candidates.map((candidate, at) => (at === index ? { providerId: candidate.providerId, ...(config ? { config } : {}) } : candidate)),
          true
        )
      },
      async add(providerId) {
        if (get().candidates.some((candidate) => candidate.providerId === providerId)) return true
        return save([...get().candidates, { providerId }])
      },
      async remove(index) {
        const candidates = get().candidates
        if (candidates.length <= 1 || !candidates[index]) return false
        return save(candidates.filter((_, at) => at !== index))
      },
      applyOrderSetting(value) {
        if (!get().orderSaving) set({ candidates: candidatesFromSetting(value), orderStatus: 'ready' })
      },
      dismissOrderError() {
        set({ orderError: undefined })
      }
    }
  }
