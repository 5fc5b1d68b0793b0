import { agentsContract } from './agents'
import { approvalsContract } from './approvals'
import { checkpointsContract } from './checkpoints'
import { doctorContract } from './doctor'
import { historyContract } from './history'
import { networkContract } from './network'
import { providersContract } from './providers'
import { resourcesContract } from './resources'
import { rulesContract } from './rules'
import { sessionsContract } from './sessions'
import { settingsContract } from './settings'
import { skillsContract } from './skills'
import { systemContract } from './system'
import { timelineContract } from './timeline'
import { workspaceContract } from './workspace'
import type { ContractApi } from './contract'

export * from './contract'
export * from './wire'
export { agentsContract } from './agents'
export { approvalsContract } from './approvals'
export { checkpointsContract, checkpointDetailLimit, type CheckpointView, type FileDiffView } from './checkpoints'
export { doctorContract } from './doctor'
export { historyContract } from './history'
export { networkContract } from './network'
export { providersContract, type ProviderView } from './providers'
export { resourcesContract, resourceEventSchema, type ResourceEventView } from './resources'
export { rulesContract } from './rules'
export { sessionsContract } from './sessions'
export { settingsContract } from './settings'
export { skillsContract } from './skills'
export { systemContract, transportSchema, type SystemInfo } from './system'
export { timelineContract, timelinePageLimit, type TimelineEntry } from './timeline'
export { workspaceContract } from './workspace'

/** The whole typed contract between main and every console, one entry per namespace. */
export const airlockContract = {
  system: systemContract,
  settings: settingsContract,
  resources: resourcesContract,
  providers: providersContract,
  agents: agentsContract,
  history: historyContract,
  skills: skillsContract,
  approvals: approvalsContract,
  rules: rulesContract,
  sessions: sessionsContract,
  workspace: workspaceContract,
  checkpoints: checkpointsContract,
  timeline: timelineContract,
  doctor: doctorContract,
  network: networkContract
}

/** The contract's type. */
export type AirlockContract = typeof airlockContract

/** The API a console sees as `window.airlock` (Electron) or over the WebSocket (web console). */
export type AirlockApi = ContractApi<AirlockContract>
