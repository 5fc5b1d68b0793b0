import type { PolicyApproval } from './policy-approval'
import type { HandleStore, ResourceScope, SettingsReader } from './types'

/** What the manager is built with; all optional (SPEC §3.7). */
export type ExecutionResourceManagerOptions = { approval?: PolicyApproval; settings?: SettingsReader; handleStore?: HandleStore }

/** Options of one `ensure`: scope/owner overrides and cancellation of the provider start. */
export type EnsureOptions = { scope?: ResourceScope; ownerId?: string; signal?: AbortSignal }
