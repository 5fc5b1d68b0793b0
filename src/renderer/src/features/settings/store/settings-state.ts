import { create } from 'zustand'
import type { SettingsClient } from './client'
import { createEgressSlice, type EgressSlice } from './egress-slice'
import { createSettingsSlice, type SettingsSlice } from './settings-slice'

/** The settings feature's state: the settings, and the egress proxy's rules and pinned names. */
export type SettingsState = SettingsSlice & EgressSlice

/** Builds the settings store from its slices over a client of the contract. */
export function createSettingsStore(client: SettingsClient) {
  return create<SettingsState>()((...a) => ({ ...createSettingsSlice(client)(...a), ...createEgressSlice(client)(...a) }))
}
