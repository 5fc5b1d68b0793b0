import type { AirlockApi } from '@shared/ipc'

/** The part of the contract the approvals feature calls (tests hand in a stand-in for the host). */
export type ApprovalsClient = Pick<AirlockApi, 'approvals' | 'rules'>
