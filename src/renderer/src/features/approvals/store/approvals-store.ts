import { airlock, onStale } from '../../../lib/airlock-client'
import { createApprovalsStore } from './approvals-state'

/** The approvals store of this console; main owns the queue and the rules and says when they change. */
export const useApprovalsStore = createApprovalsStore(airlock)

airlock.approvals.onChanged(() => void useApprovalsStore.getState().refreshQueue())
airlock.rules.onChanged(() => {
  if (useApprovalsStore.getState().rulesStatus !== 'idle') void useApprovalsStore.getState().refreshRules()
})
// Events sent while the web console's socket was down are lost, and another process may have
// decided items: read everything again (on reconnect and on another process's writes).
onStale(() => {
  const state = useApprovalsStore.getState()
  if (state.queueStatus !== 'idle') void state.refreshQueue()
  if (state.rulesStatus !== 'idle') void state.refreshRules()
})
