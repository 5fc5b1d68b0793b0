import type { RuleMatcher, RuleView } from '@shared/approvals'
import type { StateCreator } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import type { ApprovalsState } from './approvals-state'
import type { ApprovalsClient } from './client'

/** Remembered rules: the list (active, or with revoked and expired ones), edits and revocations. */
export type RulesSlice = {
  rules: RuleView[]
  rulesStatus: 'idle' | 'loading' | 'ready' | 'error'
  rulesError?: string
  /** Whether revoked and expired rules are listed too (`rules.list({all})`). */
  showEndedRules: boolean
  refreshRules(): Promise<void>
  setShowEndedRules(all: boolean): Promise<void>
  /** Edits a rule's TTL (from now; null: none) and/or matcher; resolves with the host's message when refused. */
  updateRule(change: { id: string; ttlSeconds?: number | null; matcher?: RuleMatcher }): Promise<string | undefined>
  /** Revokes a rule; resolves with the host's message when refused. */
  revokeRule(id: string): Promise<string | undefined>
  rulesActionError?: string
  dismissRulesActionError(): void
}

/** The rules slice over a client of the contract. */
export const createRulesSlice =
  (client: ApprovalsClient): StateCreator<ApprovalsState, [], [], RulesSlice> =>
  (set, get) => {
    const refreshRules = coalescedRefresh(async () => {
      if (get().rulesStatus === 'idle') set({ rulesStatus: 'loading' })
      const all = get().showEndedRules
      const result = await client.rules.list(all ? { all: true } : {})
      if (all !== get().showEndedRules) return
      if (result.ok) set({ rules: result.value, rulesStatus: 'ready', rulesError: undefined })
      else set({ rulesStatus: get().rulesStatus === 'ready' ? 'ready' : 'error', rulesError: result.error.message })
    })
    const replace = (rule: RuleView) => set({ rules: get().rules.map((r) => (r.id === rule.id ? rule : r)) })
    return {
      rules: [],
      rulesStatus: 'idle',
      showEndedRules: false,
      refreshRules,
      async setShowEndedRules(all) {
        set({ showEndedRules: all })
        await refreshRules()
      },
      async updateRule(change) {
        const result = await client.rules.update(change)
        if (!result.ok) return result.error.message
        replace(result.value)
        return undefined
      },
      async revokeRule(id) {
        const result = await client.rules.revoke({ id })
        if (!result.ok) {
          set({ rulesActionError: result.error.message })
          return result.error.message
        }
        if (get().showEndedRules) replace(result.value)
        else set({ rules: get().rules.filter((rule) => rule.id !== id) })
        set({ rulesActionError: undefined })
        return undefined
      },
      dismissRulesActionError: () => set({ rulesActionError: undefined })
    }
  }
