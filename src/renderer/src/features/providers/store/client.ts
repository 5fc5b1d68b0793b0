import type { AirlockApi } from '@shared/ipc'

/** The part of the contract the providers feature calls (tests hand in a stand-in for the host). */
export type ProvidersClient = Pick<AirlockApi, 'providers' | 'settings' | 'doctor'>

/** The setting that holds the ordered code-execution candidates (SPEC §3.3). */
export const orderSettingKey = 'code_execution.providers' as const
