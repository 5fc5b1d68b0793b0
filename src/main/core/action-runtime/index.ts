// The action runtime (SPEC §5.1): specs, the registry, hooks, the dispatcher and its history port.
export type {
  ActionAgent,
  ActionArtifact,
  ActionCall,
  ActionContext,
  ActionOutcome,
  ActionResult,
  ActionSpec,
  ActionStatus,
  AnyActionSpec,
  ExecutionFacts,
  LineageEndpoint
} from './action-spec'
export { ActionRegistry, toolEnabled, type ActionResolver } from './action-registry'
export {
  ActionHooks,
  type PostToolResponseEvent,
  type PostToolResponseHook,
  type PreToolCallDecision,
  type PreToolCallEvent,
  type PreToolCallHook,
  type RunningHook,
  type RunStop
} from './action-hooks'
export type { ActionCallEnd, ActionCallStart, ActionHistory } from './action-history'
export { ActionDispatcher, type ActionDispatcherOptions, type AgentGate, type CallCheck } from './action-dispatcher'
export { SessionHolds } from './session-holds'
export type { LiveOutput } from './live-output'
export { redacted, redactText, redactValue, secretVariants, type RedactOptions } from './redaction'
