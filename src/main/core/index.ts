// The public API of the execution-resource core (SPEC §3.7). Tests and integrators import from here.
export { ExecutionResourceManager } from './manager'
export type { EnsureOptions, ExecutionResourceManagerOptions } from './manager-options'
export { PolicyApproval, createInputTimeoutHandler, type ApprovalDecision, type ApprovalHandler, type ApprovalRequest, type PromptIo } from './policy-approval'
export { ExecutionResourceError, executionResourceErrorCodes, PortInUseError, type ExecutionResourceErrorCode } from './errors'
export { ResourceEventBus, eventPayload, resourceEventTypes, type ResourceEventListener, type ResourceEventType } from './resource-events'
export { matchCapabilities, compareVersions } from './capability-match'
export { canonicalJson, finalReuseKey } from './reuse-key'
export { createExecution, type Execution, type ExecutionOptions } from './execution-flow'
export { KeyedLock } from './keyed-lock'
export type { ProbeRecord } from './provider-selection'
export type * from './types'
export {
  shellProgram,
  type CommandResult,
  type CommandRunInput,
  type CommandRunner,
  type OutputListener,
  type OutputStream,
  type ProgramRunInput,
  type ProgramRunner
} from './live-resources'
export * from './code-execution'
export * from './sandbox'
export * from './action-runtime'
export * from './live-resources/vector'
export * from './live-resources/data'
export * from './policy'
export * from './egress'
