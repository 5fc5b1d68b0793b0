import type { AirlockApi } from '@shared/ipc'

/** The part of the contract the settings feature calls (tests hand in a stand-in for the host). */
export type SettingsClient = Pick<AirlockApi, 'settings' | 'network'>
