import type { NetHost, NetRule, NetRuleInput } from '@shared/network'
import type { StateCreator } from 'zustand'
import type { SettingsClient } from './client'
import type { SettingsState } from './settings-state'

/** The egress proxy's domain rules and pinned names (SPEC §6.5), with the host's last refusal. */
export type EgressSlice = {
  netRules: NetRule[]
  netHosts: NetHost[]
  netError?: string
  loadEgress(): Promise<void>
  /** Resolves to true when main kept it. */
  addNetRule(input: NetRuleInput): Promise<boolean>
  removeNetRule(id: string): Promise<boolean>
  addNetHost(input: NetHost): Promise<boolean>
  removeNetHost(name: string): Promise<boolean>
}

/** The egress slice: main validates and stores, `network.changed` tells every console to reload. */
export const createEgressSlice =
  (client: SettingsClient): StateCreator<SettingsState, [], [], EgressSlice> =>
  (set, get) => {
    const settle = async (result: { ok: boolean; error?: { message: string } }): Promise<boolean> => {
      if (!result.ok) {
        set({ netError: result.error?.message })
        return false
      }
      set({ netError: undefined })
      await get().loadEgress()
      return true
    }
    return {
      netRules: [],
      netHosts: [],
      async loadEgress() {
        const [rules, hosts] = await Promise.all([client.network.listRules({}), client.network.listHosts({})])
        if (rules.ok && hosts.ok) set({ netRules: rules.value, netHosts: hosts.value })
        else set({ netError: (rules.ok ? undefined : rules.error.message) ?? (hosts.ok ? undefined : hosts.error.message) })
      },
      addNetRule: async (input) => settle(await client.network.addRule(input)),
      removeNetRule: async (id) => settle(await client.network.removeRule({ id })),
      addNetHost: async (input) => settle(await client.network.addHost(input)),
      removeNetHost: async (name) => settle(await client.network.removeHost({ name }))
    }
  }
