import { create } from 'zustand'
import type { SettingsClient } from './client'
import { createSettingsSlice, type SettingsSlice } from './settings-slice'

/** The settings feature's state. One slice today; editors that need shared state add theirs here. */
export type SettingsState = SettingsSlice

/** Builds the settings store from its slices over a client of the contract. */
export function createSettingsStore(client: SettingsClient) {
  return create<SettingsState>()((...a) => ({ ...createSettingsSlice(client)(...a) }))
}
