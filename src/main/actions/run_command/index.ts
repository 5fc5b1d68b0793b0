// `run_command` (SPEC §5.3): a factory, because each instance keeps its sessions' working directories.
export type { SessionDirectoryStore } from './session-directory'
export { createRunCommandAction } from './run-command-action'
export { shellRequirement } from './shell-session'
