import { airlock, onStale } from '../../../lib/airlock-client'
import { createResourcesStore } from './resources-state'

/** The resources store of this console: handles refresh on `resources.changed`, events stream in as pushed. */
export const useResourcesStore = createResourcesStore(airlock)

airlock.resources.onEvent((event) => useResourcesStore.getState().receive(event))
airlock.resources.onChanged(() => void useResourcesStore.getState().refreshHandles())
onStale(() => {
  if (useResourcesStore.getState().handlesStatus !== 'idle') void useResourcesStore.getState().refreshHandles()
})
