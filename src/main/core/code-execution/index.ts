export { createCodeBundle, digestOf, type BundleFile, type BundleManifest, type CodeBundle } from './code-bundle'
export { adapterFor, type ExecutionStep, type LanguageAdapter } from './language-adapters'
export {
  ensureExecutionsFolder,
  ExpectedOutputMissingError,
  isExecutionsFolder,
  TaskWorkspaceGrant,
  type CollectedOutput,
  type ExecutionArea,
  type GrantMode
} from './task-workspace'
export { codeExecutionRequirement, fullIsolation, type CodeExecutionTarget } from './code-requirement'
export { executeCode, executionRequirement, type CodeExecutionOutcome, type ExecuteCodeInput } from './execute-code'
