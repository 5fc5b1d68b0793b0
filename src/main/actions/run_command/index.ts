// `run_command` (SPEC §5.3): a factory, because each instance keeps its sessions' working directories.
export type { SessionDirectoryStore } from './session-directory'
export { createRunCommandAction, runCommandInputSchema, RunCommandError, type RunCommandData, type RunCommandInput } from './run-command-action'
export { shellRequirement } from './shell-session'
export { cwdMarker, SessionDirectories, takeCwdReport, withCwdReport, workspaceDirectory, type WorkspaceDirectory } from './session-directory'
export {
  dockerShellLanguage,
  executionDiagnostics,
  executionPolicy,
  orderedCandidates,
  providerFacts,
  recordEgress,
  recordNetworkUse,
  selectionFailure,
  summariseProbes,
  unsafeFallback,
  type ProbeSummary
} from './execution-profile'
