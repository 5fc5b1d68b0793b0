import { airlock } from '../../../lib/airlock-client'
import { followHost } from '../../../lib/follow-host'
import { createProvidersStore, providersFeed } from './providers-state'

/** The providers store of this console; main owns the data and pushes changes. */
export const useProvidersStore = createProvidersStore(airlock)

followHost(useProvidersStore, providersFeed(airlock))
