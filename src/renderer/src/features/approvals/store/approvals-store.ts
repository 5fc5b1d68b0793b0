import { airlock } from '../../../lib/airlock-client'
import { followHost } from '../../../lib/follow-host'
import { approvalsFeed, createApprovalsStore } from './approvals-state'

/** The approvals store of this console; main owns the queue and the rules and says when they change. */
export const useApprovalsStore = createApprovalsStore(airlock)

followHost(useApprovalsStore, approvalsFeed(airlock))
