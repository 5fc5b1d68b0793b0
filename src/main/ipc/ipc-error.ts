import { AirlockError } from '@shared/errors'

/** Stable codes the IPC handlers add to those of the contract layer and the services. */
export type IpcErrorCode = 'ipc.not_found' | 'agent.unsafe_needs_confirmation' | 'console.no_token'

/**
 * A handler's own refusal (e.g. an id that names nothing). The dispatcher turns it into
 * `{ok:false, error:{code, message}}`; `data` is JSON for machines and never crosses IPC.
 */
export class IpcError extends AirlockError<IpcErrorCode> {}
