// Agent capability helpers (SPEC §2): intent-level helpers that turn a profile's capabilities into
// action specs, requirements and policy. Callers never see handles or provider internals.
export { combineCapabilities, noCapability, type AgentCapability } from './agent-capability'
export {
  capabilitiesOf,
  enableBrowser,
  enableCodeRuntime,
  enableCodingWorkspace,
  enableNodejs,
  enablePython,
  enableShell,
  enableSqlite,
  enableVectorStore,
  enableWorkspaceFiles,
  useMcp,
  type CapabilityTarget
} from './enable-capabilities'
export { actionAgent, agentToolset, type AgentToolset } from './agent-toolset'
