import { create } from 'zustand'
import { on, type HostFeed } from '../../../lib/follow-host'
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

/**
 * How the approvals store follows main: the queue and the rules are read again when they change,
 * and after a reconnect or another process's writes (events sent meanwhile were lost, the CLI may
 * have decided items). Rules are read only once the rules tab asked for them.
 */
export function approvalsFeed(client: ApprovalsClient): HostFeed<ApprovalsState> {
  return {
    events: [
      on(client.approvals.onChanged, (state) => void state.refreshQueue()),
      on(client.rules.onChanged, (state) => {
        if (state.rulesStatus !== 'idle') void state.refreshRules()
      })
    ],
    reload(state) {
      if (state.queueStatus !== 'idle') void state.refreshQueue()
      if (state.rulesStatus !== 'idle') void state.refreshRules()
    }
  }
}
