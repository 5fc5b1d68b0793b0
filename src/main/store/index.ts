import { dirname, join } from 'node:path'
import type { Database } from 'better-sqlite3'
import { ActionCallRepository } from './action-call-repository'
import { openDatabase, type OpenDatabaseOptions } from './database'
import { EventRepository } from './event-repository'
import { HandleRepository } from './handle-repository'
import { AgentRepository } from './agent-repository'
import { RoleRepository } from './role-repository'
import { SessionRepository } from './session-repository'
import { SettingsRepository } from './settings-repository'
import { SkillRepository } from './skill-repository'
import { ApprovalRepository } from './approval-repository'
import { RuleRepository } from './rule-repository'
import { DoctorRepository } from './doctor-repository'
import { NetworkRepository } from './network-repository'
import { AuditRecord } from './audit-record'
import { CheckpointRepository } from './checkpoint-repository'
import { anchorFileName } from './audit-anchor'

export { openDatabase, latestSchemaVersion } from './database'
export { migrations, type Migration } from './migrations'
export { StoreError, type StoreErrorCode } from './store-error'
export { SettingsRepository } from './settings-repository'
export { ActionCallRepository, HistoryError, type FinishedCall, type HistoryErrorCode, type StoredOutput } from './action-call-repository'
export type { ChainVerification } from './action-call-chain'
export { historyQueryMaxLimit, type HistoryFilters, type HistoryQuery } from './action-call-query'
export { usageMaxWindowMs } from './action-call-usage'
export { outputSearchText } from './output-search-text'
export { EventRepository, type StoredEvent } from './event-repository'
export { HandleRepository } from './handle-repository'
export { AgentRepository, type AgentRecord, type AgentRecordChange } from './agent-repository'
export { RoleRepository, type RoleRecord } from './role-repository'
export { SessionRepository, SessionRecordError, interruptedReason } from './session-repository'
export { SkillRepository } from './skill-repository'
export { ApprovalRepository, watchFreshMs, type NewApproval } from './approval-repository'
export { RuleRepository, type NewRule } from './rule-repository'
export { DoctorRepository } from './doctor-repository'
export { NetworkRepository } from './network-repository'
export {
  CheckpointRepository,
  pathKey,
  type CheckpointChange,
  type CheckpointKind,
  type CheckpointRecord,
  type EntryKind,
  type EntryState,
  type IndexedEntry
} from './checkpoint-repository'
export { AuditRecord, type AuditFailure, type AuditVerification } from './audit-record'
export { anchorFileName, anchorSettingKey, type AuditAnchor } from './audit-anchor'
export type { LedgerHead } from './audit-ledger'

/** The opened store: the database and one repository per table in use. */
export type Store = {
  readonly db: Database
  readonly settings: SettingsRepository
  readonly events: EventRepository
  readonly handles: HandleRepository
  /** The execution history and its hash chain; log files live in `logs/` beside the database. */
  readonly history: ActionCallRepository
  readonly agents: AgentRepository
  readonly roles: RoleRepository
  readonly sessions: SessionRepository
  /** Skill revisions and their approval state (SPEC §6.4). */
  readonly skills: SkillRepository
  /** The operator's approval queue (SPEC §7). */
  readonly approvals: ApprovalRepository
  /** Remembered grants (SPEC §7). */
  readonly rules: RuleRepository
  /** The doctor's reports (SPEC §9). */
  readonly doctor: DoctorRepository
  /** The egress proxy's domain rules and pinned names (SPEC §6.5). */
  readonly network: NetworkRepository
  /** Workspace checkpoints: each workspace's index, checkpoints and their changes, the content store's objects. */
  readonly checkpoints: CheckpointRepository
  /** The tamper-evident record as a whole: history chain, audit ledger, anchored head (`<home>/audit-anchor.json`). */
  readonly audit: AuditRecord
  close(): void
}

/** Opens the database at `file` (migrating it) and builds the repositories over it. */
export function openStore(file: string, options: OpenDatabaseOptions = {}): Store {
  const db = openDatabase(file, options)
  const logsDir = join(dirname(file), 'logs')
  const audit = new AuditRecord(db, logsDir, join(dirname(file), anchorFileName))
  return {
    db,
    settings: new SettingsRepository(db),
    events: new EventRepository(db),
    handles: new HandleRepository(db),
    history: new ActionCallRepository(db, logsDir, audit),
    agents: new AgentRepository(db),
    roles: new RoleRepository(db),
    sessions: new SessionRepository(db),
    skills: new SkillRepository(db),
    approvals: new ApprovalRepository(db),
    rules: new RuleRepository(db),
    doctor: new DoctorRepository(db),
    network: new NetworkRepository(db),
    checkpoints: new CheckpointRepository(db),
    audit,
    close: () => db.close()
  }
}
