import type { SandboxIdentity } from '../../core'
import type { CheckpointChange, CheckpointRecord, CheckpointRepository } from '../../store'
import type { ContentStore } from './content-store'
import type { ScanResult } from './workspace-scan'

/** The operator's checkpoint settings, read at every use. */
export type CheckpointSettings = { enabled: boolean; maxFileBytes: number; keepDays: number; keepCount: number; maxStoreBytes: number }

/** What a finished sync tells its caller: the checkpoint recorded (if anything changed) and the workspace's use. */
export type SyncOutcome = { checkpoint?: CheckpointRecord; changes: CheckpointChange[]; complete: boolean; usage: ScanResult['usage']; unstable: string[] }

/** What the operator's revert or restore did. */
export type UndoOutcome = { checkpoint?: CheckpointRecord; reverted: CheckpointRecord; files: number }

export type WorkspaceCheckpointsOptions = {
  repository: CheckpointRepository
  store: ContentStore
  settings: () => CheckpointSettings
  /** The agent's workspace folder, or undefined when the agent is gone. */
  workspaceOf: (agentId: string) => string | undefined
  /** Records the operator's revert or restore as a history row (hash-chained); returns its id. */
  recordOperatorCall?: (input: {
    callId: string
    agentId: string
    tool: 'checkpoint.revert' | 'checkpoint.restore'
    target: CheckpointRecord
    files: number
    error?: { code: string; message: string }
  }) => void
  /** The secrets known for an agent (its profile's, the operator's secret variables): diffs show them redacted, as history does. */
  secretsOf?: (agentId: string) => readonly string[]
  /** Hears every checkpoint recorded (consoles refresh). */
  onRecorded?: (record: CheckpointRecord) => void
  /** Hears pruning (recorded in the event log). */
  onPruned?: (agentId: string, pruned: CheckpointRecord[]) => void
  /** How many writes other connections committed (SQLite `data_version`): a change drops the cached indexes. */
  foreignWrites?: () => number
  identity?: SandboxIdentity
  /**
   * Watch workspaces (inotify) so a checkpoint walks only the folders that changed, and none before
   * a call when nothing did. Off (the CLI's one-shot undo): every walk is whole.
   */
  watch?: boolean
}
