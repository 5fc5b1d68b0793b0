import type { AirlockApi } from '@shared/ipc'

/** The part of the contract the resources feature calls (tests hand in a stand-in for the host). */
export type ResourcesClient = Pick<AirlockApi, 'resources'>
