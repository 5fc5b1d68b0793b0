import { airlock } from '../../../lib/airlock-client'
import { followHost } from '../../../lib/follow-host'
import { checkpointsFeed, createCheckpointsStore } from './checkpoints-state'

/** Changes per call and the operator's undo; main owns every fact and says when an agent's checkpoints changed. */
export const useCheckpointsStore = createCheckpointsStore(airlock)

followHost(useCheckpointsStore, checkpointsFeed(airlock))
