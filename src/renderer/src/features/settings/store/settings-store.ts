import { airlock, onStale } from '../../../lib/airlock-client'
import { createSettingsStore } from './settings-state'

/** The settings store of this console; main owns the data, this mirrors it and follows `settings.changed`. */
export const useSettingsStore = createSettingsStore(airlock)

airlock.settings.onChanged((view) => useSettingsStore.getState().applyChanged(view))
airlock.network.onChanged(() => void useSettingsStore.getState().loadEgress())
onStale(() => {
  const state = useSettingsStore.getState()
  if (state.status === 'idle') return
  void state.load()
  void state.loadEgress()
})
