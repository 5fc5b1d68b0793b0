import { airlock } from '../../../lib/airlock-client'
import { createSystemStore } from './system-state'

/** The system store of this console (facts about the running Airlock). */
export const useSystemStore = createSystemStore(airlock)
