import type { AirlockApi } from '@shared/ipc'

/** The part of the contract the history feature calls: its calls, and agents and providers for the filter menus. */
export type HistoryClient = Pick<AirlockApi, 'history' | 'agents' | 'providers'>
