// The operator's approval queue and remembered rules (SPEC §7): the `console` approval handler,
// decisions from any process through the shared database, and the rules consulted before asking.
export { ApprovalQueue, maxPendingPerAgent, type ApprovalQueueOptions } from './approval-queue'
export { ApprovalDecisions, type Decided, type DecidedBy } from './approval-decisions'
export { ApprovalError, type ApprovalErrorCode } from './approval-errors'
export { commandsWereCut, defaultApprovalTimeoutSeconds, prepareRequest, shownCommandLimits, type PreparedRequest } from './approval-requests'
export type { ApprovalWaitEvent, ApprovalWaitListener } from './approval-waiters'
export { RuleService, type RuleDraft, type RuleServiceOptions } from './rule-service'
export { describeMatcher, matcherCovers, notRememberable, proposeMatcher, type RequestFacts } from './rule-matchers'
