import { create } from 'zustand'
import { on, type HostFeed } from '../../../lib/follow-host'
import type { SettingsClient } from './client'
import { createEgressSlice, type EgressSlice } from './egress-slice'
import { createSettingsSlice, type SettingsSlice } from './settings-slice'

/** The settings feature's state: the settings, and the egress proxy's rules and pinned names. */
export type SettingsState = SettingsSlice & EgressSlice

/** Builds the settings store from its slices over a client of the contract. */
export function createSettingsStore(client: SettingsClient) {
  return create<SettingsState>()((...a) => ({ ...createSettingsSlice(client)(...a), ...createEgressSlice(client)(...a) }))
}

/**
 * How the settings store follows main: a changed setting as pushed (`settings.changed`), the egress
 * rules on `network.changed`, and everything read again after a reconnect or another process's
 * writes, once the view has loaded.
 */
export function settingsFeed(client: SettingsClient): HostFeed<SettingsState> {
  return {
    events: [on(client.settings.onChanged, (state, view) => state.applyChanged(view)), on(client.network.onChanged, (state) => void state.loadEgress())],
    reload(state) {
      if (state.status === 'idle') return
      void state.load()
      void state.loadEgress()
    }
  }
}
