import { airlock, onStale } from '../../../lib/airlock-client'
import { saveFile } from '../lib/download'
import { createHistoryStore } from './create-history-store'

/** The history store; main owns the rows and says when one changed (`history.changed`). */
export const useHistoryStore = createHistoryStore({ api: airlock, save: saveFile, now: () => new Date() })

airlock.history.onChanged((change) => useHistoryStore.getState().receive(change))
airlock.history.onOutput((lines) => useHistoryStore.getState().receiveOutput(lines))
airlock.agents.onChanged(() => {
  if (useHistoryStore.getState().status !== 'idle') void useHistoryStore.getState().refreshOptions()
})
onStale(() => {
  const state = useHistoryStore.getState()
  if (state.status === 'idle') return
  void state.refreshTop()
  void state.refreshOptions()
})
