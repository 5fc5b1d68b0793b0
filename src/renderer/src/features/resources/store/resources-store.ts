import { airlock } from '../../../lib/airlock-client'
import { followHost } from '../../../lib/follow-host'
import { createResourcesStore, resourcesFeed } from './resources-state'

/** The resources store of this console: handles refresh on `resources.changed`, events stream in as pushed. */
export const useResourcesStore = createResourcesStore(airlock)

followHost(useResourcesStore, resourcesFeed(airlock))
