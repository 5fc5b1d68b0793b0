import type { AirlockApi } from '@shared/ipc'

/** The part of the contract the system feature calls (tests hand in a stand-in for the host). */
export type SystemClient = Pick<AirlockApi, 'system'>
