// What the built-in file actions share (SPEC §5.3, §6.2): path rules and limits, race-safe
// resolution inside an agent's workspace, atomic replacement, and the workspace disk quota, which
// other actions and the host also call after commands.
export { asWorkspaceFileError, fileActionOutcome, WorkspaceFileError, workspaceFileReasons, type WorkspaceFileReason } from './workspace-file-error'
export {
  directoryPathSchema,
  fileContentSchema,
  filePathSchema,
  joinComponents,
  pathComponents,
  pathProblem,
  workspaceLimits,
  type PathOperand
} from './workspace-path'
export {
  closeWorkspace,
  hostFolder,
  maxLinkHops,
  openResolvedDirectory,
  openWorkspace,
  reopen,
  resolveEntry,
  type ResolvedEntry,
  type ResolveOptions,
  type WorkspaceRoot
} from './workspace-resolver'
export {
  assertFileEntry,
  assertPlainFile,
  assertWritableName,
  historyFile,
  openWorkspaceFile,
  readAt,
  withWorkspaceFile,
  readWhole,
  replaceFile,
  type OpenedFile
} from './workspace-file-io'
export { assertWithinQuota, entryLimit, quotaRefusal, usageBounds, workspaceUsage, type WorkspaceUsage } from './workspace-quota'
export { rememberUsage, watchQuota } from './workspace-quota-watch'
export { childPath, openChildDirectory, readDirectory, type DirectoryEntry, type EntryType } from './workspace-listing'
