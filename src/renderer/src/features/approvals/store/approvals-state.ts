import { create } from 'zustand'
import type { ApprovalsClient } from './client'
import { createQueueSlice, type QueueSlice } from './queue-slice'
import { createRulesSlice, type RulesSlice } from './rules-slice'

/** The approvals feature's state: the live queue and the remembered rules. */
export type ApprovalsState = QueueSlice & RulesSlice

/** Builds the approvals store from its slices over a client of the contract. */
export function createApprovalsStore(client: ApprovalsClient) {
  return create<ApprovalsState>()((...a) => ({
    ...createQueueSlice(client)(...a),
    ...createRulesSlice(client)(...a)
  }))
}
