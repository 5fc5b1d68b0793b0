import type { AirlockApi } from '@shared/ipc'

/** The part of the contract the agents feature calls (tests hand in a stand-in for the host). */
export type AgentsClient = Pick<AirlockApi, 'agents' | 'sessions' | 'approvals' | 'history' | 'settings' | 'timeline' | 'workspace' | 'checkpoints'>
