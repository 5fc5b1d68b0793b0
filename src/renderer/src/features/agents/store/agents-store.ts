import { airlock } from '../../../lib/airlock-client'
import { followHost } from '../../../lib/follow-host'
import { agentsFeed, createAgentsStore } from './agents-state'

export type { Loadable } from './detail-slice'
export type { IssuedToken } from './profile-slice'

/** The agents store of this console; main owns every fact in it and says when one changed. */
export const useAgentsStore = createAgentsStore(airlock)

followHost(useAgentsStore, agentsFeed(airlock))
