import type { AirlockApi } from '@shared/ipc'

/** The part of the contract the checkpoints feature calls (tests hand in a stand-in for the host). */
export type CheckpointsClient = Pick<AirlockApi, 'checkpoints'>
