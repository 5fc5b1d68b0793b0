export {
  createCallDispatcher,
  formatIssues,
  maxInputBytes,
  type CallContext,
  type CallDispatcher,
  type ContractHandlers
} from './call-dispatcher'
export { ContractEventHub, type ContractEventListener } from './contract-events'
export { createContractHandlers, type HandlerServices } from './handlers'
export { IpcError, type IpcErrorCode } from './ipc-error'
export { confirmHostRun, newlyUnsafeServers, type HostRunConfirmation } from './host-run-confirmation'
