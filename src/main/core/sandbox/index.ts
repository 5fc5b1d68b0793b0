// Sandbox facts shared by the core, the providers and the actions: which uid sandboxed code runs
// as, and how the host touches trees a sandbox can write without following what it planted.
export { dedicatedSandboxUid, sandboxIdentity, type SandboxIdentity } from './sandbox-identity'
export {
  NoFollowError,
  descendFolders,
  descriptorPath,
  giveTo,
  makeDirectoryExclusive,
  openBeneath,
  openChildDirectory,
  openDirectoryNoFollow,
  openRegularFile,
  relativeComponents,
  writeNewFile
} from './no-follow'
export { assertReachableBySandbox, assertWritableBySandbox, claimWorkspace, openHostDirectory, sandboxReachProblem } from './workspace-owner'
export { gitSafeDirectoryEnv } from './git-safe-directory'
