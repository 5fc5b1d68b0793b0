import { airlock, onStale } from '../../../lib/airlock-client'
import { orderSettingKey } from './client'
import { createProvidersStore } from './providers-state'

/** The providers store of this console; main owns the data and pushes changes. */
export const useProvidersStore = createProvidersStore(airlock)

airlock.providers.onImageProgress((event) => useProvidersStore.getState().receiveProgress(event))
airlock.doctor.onChanged((change) => useProvidersStore.getState().doctorChanged(change))
airlock.settings.onChanged((view) => {
  if (view.key === orderSettingKey) useProvidersStore.getState().applyOrderSetting(view.value)
})
onStale(() => {
  const state = useProvidersStore.getState()
  if (state.orderStatus === 'idle') return
  void state.loadOrder()
  void state.loadDoctor()
})
