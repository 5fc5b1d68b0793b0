import { randomUUID } from 'node:crypto'
import { closeSync, constants, openSync, realpathSync } from 'node:fs'
import { KeyedLock, redactText, sandboxIdentity, type SandboxIdentity } from '../../core'
import { pathKey, type CheckpointChange, type CheckpointKind, type CheckpointRecord, type IndexedEntry } from '../../store'
import { applySteps, type ApplyStep } from './checkpoint-apply'
import { CheckpointRetention } from './checkpoint-retention'
import { assertUndoable, restoreSteps, revertSteps } from './undo-plan'
import { describeChanges, shownPath, type FileDiff } from './checkpoint-diff'
import { CheckpointError } from './checkpoint-error'
import { scanWorkspace, WholeWalkNeeded, type ScanResult } from './workspace-scan'
import { drainEvents, WorkspaceWatch } from './workspace-watch'
import type { SyncOutcome, UndoOutcome, WorkspaceCheckpointsOptions } from './checkpoint-options'

/**
 * Workspace checkpoints (issue 28): every call that can change a workspace is walked before and
 * after (see `scanWorkspace`), and what it changed is recorded with the content before and after
 * in the content store, so the operator can see it as a diff and undo it.
 *
 * Attribution: the walk before a call records what changed since the last one as an `outside`
 * checkpoint (the operator's editor, a process that outlived its call), so a call's checkpoint
 * holds only what happened while it ran. Calls of one agent that overlap share it: the walk
 * before the second is skipped while the first runs, and the changes go to the first of them to end.
 *
 * Per agent one walk at a time (a lock); each workspace's index is cached in memory and read again
 * when another process (the CLI) wrote the database.
 */
export class WorkspaceCheckpoints {
  private readonly lock = new KeyedLock()
  private readonly indexes = new Map<string, Map<string, IndexedEntry>>()
  private readonly inFlight = new Map<string, number>()
  private readonly watches = new Map<string, WorkspaceWatch>()
  private readonly retention: CheckpointRetention
  /** Agents whose last walk could not read everything (until a whole walk does): nothing of theirs is vouched for as recoverable. */
  private readonly incomplete = new Set<string>()
  private seenForeign: number | undefined
  private readonly identity: SandboxIdentity

  constructor(private readonly options: WorkspaceCheckpointsOptions) {
    this.identity = options.identity ?? sandboxIdentity()
    this.retention = new CheckpointRetention(options.repository, options.store, options.onPruned)
  }

  /** Whether checkpoints are being taken. */
  enabled(): boolean {
    return this.options.settings().enabled
  }

  /**
   * Before a call that can change the workspace: records what changed since the last walk (an
   * `outside` checkpoint) so the call's own checkpoint holds only its changes. Skipped while another
   * call of the agent is in flight. Returns the function the call's end calls.
   */
  async beforeCall(agentId: string): Promise<(callId: string) => Promise<SyncOutcome | undefined>> {
    const overlapping = (this.inFlight.get(agentId) ?? 0) > 0
    this.inFlight.set(agentId, (this.inFlight.get(agentId) ?? 0) + 1)
    try {
      // Nothing changed since the last walk (the workspace watch says so, once what the kernel queued arrived): no walk before the call.
      await drainEvents()
      if ((!overlapping || !this.hasIndex(agentId)) && this.mayHaveChanged(agentId)) await this.sync(agentId, { kind: 'outside' })
    } catch (error) {
      this.ended(agentId)
      throw error
    }
    let done = false
    return async (callId) => {
      if (done) return undefined
      done = true
      try {
        return await this.sync(agentId, { kind: 'call', callId })
      } finally {
        this.ended(agentId)
      }
    }
  }

  /** Walks an agent's workspace now and records what changed as one checkpoint of `kind`. */
  sync(agentId: string, what: { kind: CheckpointKind; callId?: string; note?: string }): Promise<SyncOutcome> {
    return this.lock.run(agentId, () => this.syncLocked(agentId, what))
  }

  /** An agent's checkpoints, newest first. */
  list(agentId: string, options: { limit?: number; beforeSeq?: number } = {}): CheckpointRecord[] {
    return this.options.repository.list(agentId, options)
  }

  /** A checkpoint (by its id or its call's id) and its changes. */
  get(idOrCall: string): { checkpoint: CheckpointRecord; changes: CheckpointChange[] } | undefined {
    const checkpoint = this.options.repository.find(idOrCall)
    if (!checkpoint) return undefined
    return { checkpoint, changes: this.options.repository.changes(checkpoint.seq) }
  }

  /** A checkpoint's changes as diffs, at most `limit` of them (`more` counts the rest); undefined when there is none. */
  describe(idOrCall: string, limit: number): { checkpoint: CheckpointRecord; files: FileDiff[]; more: number } | undefined {
    const found = this.get(idOrCall)
    if (!found) return undefined
    const secrets = this.options.secretsOf?.(found.checkpoint.agentId) ?? []
    const files = describeChanges(found.changes.slice(0, limit), this.options.store).map((file) => ({
      ...file,
      path: redactText(file.path, secrets),
      ...(file.diff !== undefined ? { diff: redactText(file.diff, secrets) } : {}),
      ...(file.note !== undefined ? { note: redactText(file.note, secrets) } : {})
    }))
    return { checkpoint: found.checkpoint, files, more: Math.max(0, found.changes.length - limit) }
  }

  /** The newest change of each file an agent's checkpoints recorded, newest first (paths shown as text). */
  recentChanges(agentId: string, limit: number): { path: string; change: CheckpointChange['change']; callId: string | null; at: string }[] {
    if (!this.enabled()) return []
    return this.options.repository.recentChanges(agentId, limit).map((change) => ({ ...change, path: shownPath(change.path) }))
  }

  /** The bytes of the content store an agent's checkpoints and current files hold. */
  storeBytes(agentId: string): number {
    return this.options.repository.storeBytes(agentId)
  }

  /**
   * Whether deleting or overwriting `path` (workspace path components; [] for the whole workspace)
   * could be undone now: checkpoints are on, the workspace has been walked, every file at or below
   * the path has its content kept, and the agent's store is within its budget. The policy asks
   * about anything for which this is false.
   */
  recoverable(agentId: string, path: readonly string[], options: { glob?: boolean } = {}): boolean {
    const settings = this.options.settings()
    if (!settings.enabled || !this.hasIndex(agentId)) return false
    // A walk that could not read a folder (unlistable, too deep, too many entries) knows nothing below it.
    if (this.incomplete.has(agentId)) return false
    // A glob's expansion goes through links: none may lie below where it matches.
    if (options.glob && this.options.repository.linkBelow(agentId, Buffer.from(path.join('/')))) return false
    if (path.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))) return false
    if (this.options.repository.indexBytes(agentId) > settings.maxStoreBytes) return false
    // The path must be one the last walk saw, and no folder on the way (nor the path itself) a link:
    // deleting through a link reaches wherever it points, which no checkpoint of this workspace holds.
    for (let depth = 1; depth <= path.length; depth++) {
      const kind = this.options.repository.kindOf(agentId, Buffer.from(path.slice(0, depth).join('/')))
      if (kind === undefined || kind === 'link' || (depth < path.length && kind !== 'dir')) return false
    }
    return this.options.repository.allKept(agentId, Buffer.from(path.join('/')))
  }

  /**
   * Reverts one checkpoint: each entry it changed goes back to how it was before, but only where
   * the entry is still as that checkpoint left it; an entry changed again since is a conflict and
   * the whole revert is refused, naming the files. The revert is itself a checkpoint (and a history
   * row), so it can be reverted too.
   */
  async revert(idOrCall: string): Promise<UndoOutcome> {
    const target = this.find(idOrCall)
    return this.lock.run(target.agentId, async () => {
      await this.syncLocked(target.agentId, { kind: 'outside' })
      const index = await this.indexOf(target.agentId)
      return this.undo(target, revertSteps(this.options.repository.changes(target.seq), index), index, 'revert')
    })
  }

  /** Restores the workspace to how it was before a checkpoint: every entry changed by it or after it goes back to its state before the first of those changes. */
  async restoreBefore(idOrCall: string): Promise<UndoOutcome> {
    const target = this.find(idOrCall)
    return this.lock.run(target.agentId, async () => {
      await this.syncLocked(target.agentId, { kind: 'outside' })
      const index = await this.indexOf(target.agentId)
      return this.undo(target, restoreSteps(this.options.repository.changesFrom(target.agentId, target.seq), index), index, 'restore')
    })
  }

  /**
   * The operator's reverts and restores an agent has not been told of (after `seen`; by default,
   * after its own newest call's checkpoint), and the newest seq to remember as seen: one read.
   */
  undoneSince(agentId: string, seen: number | undefined): { undone: CheckpointRecord[]; latest: number } {
    const recent = this.options.repository.list(agentId, { limit: 50 })
    const since = seen ?? recent.find((record) => record.kind === 'call')?.seq ?? 0
    const undone = recent.filter((record) => record.seq > since && (record.kind === 'revert' || record.kind === 'restore'))
    return { undone, latest: Math.max(since, recent[0]?.seq ?? 0) }
  }

  /** Forgets a removed agent's checkpoints and the content only they held. */
  forgetAgent(agentId: string): void {
    this.indexes.delete(agentId)
    this.watches.get(agentId)?.close()
    this.watches.delete(agentId)
    this.options.repository.forgetAgent(agentId)
    this.retention.dropped()
  }

  private async undo(target: CheckpointRecord, steps: ApplyStep[], index: ReadonlyMap<string, IndexedEntry>, kind: 'revert' | 'restore'): Promise<UndoOutcome> {
    assertUndoable(steps, index, kind)
    const workspace = this.workspace(target.agentId)
    const root = openSync(realpathSync(workspace), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
    let failures
    try {
      failures = applySteps(root, steps, this.options.store, this.identity)
    } finally {
      closeSync(root)
    }
    const verb = kind === 'revert' ? 'reverted' : 'restored to before'
    const note = `The operator ${verb} ${target.callId ? `call ${target.callId}` : `checkpoint ${target.id}`}${failures.length > 0 ? `; not done: ${failures.map((f) => `${f.path} (${f.reason})`).join('; ')}` : ''}`
    // The undo's history row and its checkpoint share an id: the row's drawer shows what the undo changed, and can undo it.
    const callId = randomUUID()
    const outcome = await this.syncLocked(target.agentId, { kind, note, callId })
    const error = failures.length > 0 ? { code: 'checkpoint.partly_applied', message: note } : undefined
    this.options.recordOperatorCall?.({
      callId,
      agentId: target.agentId,
      tool: kind === 'revert' ? 'checkpoint.revert' : 'checkpoint.restore',
      target,
      files: steps.length,
      ...(error ? { error } : {})
    })
    if (error) throw new CheckpointError('checkpoint.partly_applied', note, { files: failures.map((f) => f.path) })
    return { ...(outcome.checkpoint ? { checkpoint: outcome.checkpoint } : {}), reverted: target, files: steps.length }
  }

  private async syncLocked(agentId: string, what: { kind: CheckpointKind; callId?: string; note?: string }): Promise<SyncOutcome> {
    return this.retention.walk(() => this.walkAndRecord(agentId, what))
  }

  private async walkAndRecord(agentId: string, what: { kind: CheckpointKind; callId?: string; note?: string }): Promise<SyncOutcome> {
    const settings = this.options.settings()
    const workspace = realpathSync(this.workspace(agentId))
    const index = await this.indexOf(agentId)
    const watch = this.watchOf(agentId)
    await drainEvents()
    // The watch's dirty folders when it can vouch for them and the index is this process's own; else everything.
    const taken = index.size > 0 ? watch?.take() : undefined
    const only = taken && !taken.whole ? taken.folders : undefined
    if (only && only.size === 0) return { changes: [], complete: true, usage: { bytes: 0, entries: 0 }, unstable: [] }
    // What this walk stored is recorded with its checkpoint, in one transaction.
    const stored = new Map<string, number>()
    const walk = (folders: ReadonlySet<string> | undefined) => {
      const root = openSync(workspace, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW)
      return scanWorkspace(root, index, this.options.store, {
        maxFileBytes: settings.maxFileBytes,
        known: (hash) => stored.has(hash) || this.options.repository.hasObject(hash),
        onStored: (hash, bytes) => stored.set(hash, bytes),
        ...(folders ? { only: folders } : {}),
        // Watched before it is listed: a change right after the listing is still seen.
        ...(watch
          ? { onFolder: (key: string, opened: string, fresh: boolean) => watch.add(key, opened, fresh), watched: (key: string) => watch.watching(key) }
          : {})
      }).finally(() => closeSync(root))
    }
    let scan: ScanResult
    try {
      scan = await walk(only)
    } catch (error) {
      if (!(error instanceof WholeWalkNeeded)) throw error
      scan = await walk(undefined)
    }
    if (!scan.complete) this.incomplete.add(agentId)
    else if (!scan.partial) this.incomplete.delete(agentId)
    // Only a whole walk that saw (and so watched) every folder makes the watch's set trustworthy.
    if (watch && !scan.partial && scan.complete) watch.trusted()
    for (const change of scan.changes) if (change.before?.kind === 'dir' && change.after?.kind !== 'dir') watch?.remove(pathKey(change.path))
    // The first walk of a workspace is its baseline: what was there is not a change of anyone's. The
    // root's own entry (path '') marks a workspace as walked, empty or not.
    const baseline = index.size === 0 && !this.options.repository.hasIndex(agentId)
    if (baseline)
      scan.upserts.push({
        path: Buffer.alloc(0),
        kind: 'dir',
        mode: 0,
        size: 0,
        hash: null,
        kept: false,
        uid: -1,
        gid: -1,
        mtimeMs: 0,
        ctimeMs: 0,
        ino: 0,
        blocks: 0
      })
    const checkpoint = baseline
      ? undefined
      : {
          id: what.callId ?? randomUUID(),
          callId: what.callId ?? null,
          kind: what.kind,
          ...(what.note ? { note: what.note } : {}),
          changes: scan.changes,
          newBytes: scan.newBytes,
          createdAt: new Date().toISOString()
        }
    const recorded = this.options.repository.record(agentId, { upserts: scan.upserts, removed: scan.removed, objects: stored }, checkpoint)
    for (const entry of scan.upserts) index.set(pathKey(entry.path), entry)
    for (const path of scan.removed) index.delete(pathKey(path))
    if (recorded) {
      this.retention.prune(agentId, settings, scan.newBytes, recorded.seq)
      this.options.onRecorded?.(recorded)
    }
    return { ...(recorded ? { checkpoint: recorded } : {}), changes: scan.changes, complete: scan.complete, usage: scan.usage, unstable: scan.unstable }
  }

  private async indexOf(agentId: string): Promise<Map<string, IndexedEntry>> {
    const foreign = this.options.foreignWrites?.()
    if (foreign !== undefined && foreign !== this.seenForeign) {
      this.indexes.clear()
      this.seenForeign = foreign
    }
    let index = this.indexes.get(agentId)
    if (!index) {
      index = this.options.repository.index(agentId)
      this.indexes.set(agentId, index)
    }
    return index
  }

  /** Whether another call of the agent that can change its workspace is in flight (besides the asking one). */
  othersInFlight(agentId: string): boolean {
    return (this.inFlight.get(agentId) ?? 0) > 1
  }

  /** Whether the workspace may have changed since the last walk (no watch, or the watch saw something). */
  private mayHaveChanged(agentId: string): boolean {
    return this.watches.get(agentId)?.changedSinceTake() ?? true
  }

  /** The agent's workspace watch (made at its first walk in this process), or undefined where watching is off. */
  private watchOf(agentId: string): WorkspaceWatch | undefined {
    if (!this.options.watch) return undefined
    let watch = this.watches.get(agentId)
    if (!watch) {
      watch = new WorkspaceWatch()
      this.watches.set(agentId, watch)
    }
    return watch
  }

  /** Stops watching every workspace (the host is stopping). */
  dispose(): void {
    for (const watch of this.watches.values()) watch.close()
    this.watches.clear()
  }

  private hasIndex(agentId: string): boolean {
    return (this.indexes.get(agentId)?.size ?? 0) > 0 || this.options.repository.hasIndex(agentId)
  }

  private ended(agentId: string): void {
    const left = (this.inFlight.get(agentId) ?? 1) - 1
    if (left <= 0) this.inFlight.delete(agentId)
    else this.inFlight.set(agentId, left)
  }

  private find(idOrCall: string): CheckpointRecord {
    const found = this.options.repository.find(idOrCall)
    if (!found)
      throw new CheckpointError(
        'checkpoint.not_found',
        `No checkpoint for ${JSON.stringify(idOrCall)}: the call changed no file, or its checkpoint was never taken.`
      )
    if (found.prunedAt)
      throw new CheckpointError(
        'checkpoint.pruned',
        `The checkpoint of ${found.callId ?? found.id} was pruned at ${found.prunedAt} (retention settings checkpoints.*); it cannot be undone.`
      )
    return found
  }

  private workspace(agentId: string): string {
    const workspace = this.options.workspaceOf(agentId)
    if (!workspace) throw new CheckpointError('checkpoint.agent_gone', `Agent ${agentId} no longer exists; its workspace cannot be changed.`)
    return workspace
  }
}
