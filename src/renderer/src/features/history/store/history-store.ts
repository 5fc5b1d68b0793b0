import { airlock } from '../../../lib/airlock-client'
import { followHost } from '../../../lib/follow-host'
import { createHistoryStore, historyFeed } from './history-state'

/** The history store of this console; main owns the rows and says when one changed (`history.changed`). */
export const useHistoryStore = createHistoryStore(airlock)

followHost(useHistoryStore, historyFeed(airlock))
