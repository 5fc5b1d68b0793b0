import type { Database } from 'better-sqlite3'

/** What a workspace entry is: its content is a file's bytes or a link's target; a folder or `other` (FIFO, socket, device) has none. */
export type EntryKind = 'file' | 'dir' | 'link' | 'other'

/**
 * An entry's state as a checkpoint keeps it: `hash` names its content; `kept` when the store holds
 * that content; its owner (uid, gid; -1 unknown), which a restore gives back.
 */
export type EntryState = { kind: EntryKind; mode: number; size: number; hash: string | null; kept: boolean; uid: number; gid: number }

/** An entry as the last walk saw it: its state and the stat facts that tell, next time, whether it changed. */
export type IndexedEntry = EntryState & { path: Buffer; mtimeMs: number; ctimeMs: number; ino: number; blocks: number }

/** How one entry changed: `before`/`after` null when it did not exist. */
export type CheckpointChange = { path: Buffer; change: 'added' | 'modified' | 'deleted' | 'mode' | 'type'; before: EntryState | null; after: EntryState | null }

/** Why a checkpoint exists: an agent's call, changes found between calls, or the operator's revert or restore. */
export type CheckpointKind = 'call' | 'outside' | 'revert' | 'restore'

/** One checkpoint as listed. */
export type CheckpointRecord = {
  seq: number
  id: string
  agentId: string
  callId: string | null
  kind: CheckpointKind
  createdAt: string
  files: number
  newBytes: number
  note: string | null
  prunedAt: string | null
}

type CheckpointRow = {
  seq: number
  id: string
  agent_id: string
  call_id: string | null
  kind: CheckpointKind
  created_at: string
  files: number
  new_bytes: number
  note: string | null
  pruned_at: string | null
}
type ChangeRow = {
  checkpoint_seq: number
  path: Buffer
  change: CheckpointChange['change']
  before_kind: EntryKind | null
  before_mode: number | null
  before_size: number | null
  before_hash: string | null
  before_kept: number | null
  before_uid: number | null
  before_gid: number | null
  after_kind: EntryKind | null
  after_mode: number | null
  after_size: number | null
  after_hash: string | null
  after_kept: number | null
  after_uid: number | null
  after_gid: number | null
}
type FileRow = {
  path: Buffer
  kind: EntryKind
  mode: number
  size: number
  mtime_ms: number
  ctime_ms: number
  ino: number
  blocks: number
  uid: number
  gid: number
  hash: string | null
  kept: number
}

/** The lossless text key of a path's bytes (each byte one char), for maps. */
export const pathKey = (path: Buffer): string => path.toString('latin1')

const toRecord = (row: CheckpointRow): CheckpointRecord => ({
  seq: row.seq,
  id: row.id,
  agentId: row.agent_id,
  callId: row.call_id,
  kind: row.kind,
  createdAt: row.created_at,
  files: row.files,
  newBytes: row.new_bytes,
  note: row.note,
  prunedAt: row.pruned_at
})

const side = (row: ChangeRow, prefix: 'before' | 'after'): EntryState | null => {
  const kind = row[`${prefix}_kind`]
  if (kind === null) return null
  return {
    kind,
    mode: row[`${prefix}_mode`] ?? 0,
    size: row[`${prefix}_size`] ?? 0,
    hash: row[`${prefix}_hash`],
    kept: row[`${prefix}_kept`] === 1,
    uid: row[`${prefix}_uid`] ?? -1,
    gid: row[`${prefix}_gid`] ?? -1
  }
}

const toChange = (row: ChangeRow): CheckpointChange & { seq: number } => ({
  seq: row.checkpoint_seq,
  path: Buffer.from(row.path),
  change: row.change,
  before: side(row, 'before'),
  after: side(row, 'after')
})

/**
 * The checkpoint tables of schema 11: each agent's workspace index, its checkpoints and their
 * changes, and the content store's objects (the files themselves live in `<home>/checkpoints/`).
 */
export class CheckpointRepository {
  constructor(private readonly db: Database) {}

  /** What the last walk saw of an agent's workspace, by `pathKey`. */
  index(agentId: string): Map<string, IndexedEntry> {
    const rows = this.db
      .prepare('select path, kind, mode, size, mtime_ms, ctime_ms, ino, blocks, uid, gid, hash, kept from checkpoint_files where agent_id = ?')
      .all(agentId) as FileRow[]
    const index = new Map<string, IndexedEntry>()
    for (const row of rows) {
      const path = Buffer.from(row.path)
      index.set(pathKey(path), {
        path,
        kind: row.kind,
        mode: row.mode,
        size: row.size,
        mtimeMs: row.mtime_ms,
        ctimeMs: row.ctime_ms,
        ino: row.ino,
        blocks: row.blocks,
        uid: row.uid,
        gid: row.gid,
        hash: row.hash,
        kept: row.kept === 1
      })
    }
    return index
  }

  /** Whether an agent's workspace has been walked at least once. */
  hasIndex(agentId: string): boolean {
    return this.db.prepare('select 1 from checkpoint_files where agent_id = ? limit 1').get(agentId) !== undefined
  }

  /**
   * Records what a walk found, in one transaction: the objects it stored, the index's changed
   * entries (`upserts`) and removed ones (`removed`), and — when `checkpoint` is given and it changed anything — a checkpoint
   * with its changes. Returns the checkpoint recorded, if any.
   */
  record(
    agentId: string,
    update: { upserts: readonly IndexedEntry[]; removed: readonly Buffer[]; objects?: ReadonlyMap<string, number>; at?: string },
    checkpoint?: {
      id: string
      callId: string | null
      kind: CheckpointKind
      note?: string
      changes: readonly CheckpointChange[]
      newBytes: number
      createdAt: string
    }
  ): CheckpointRecord | undefined {
    const upsert = this.db.prepare(
      `insert into checkpoint_files (agent_id, path, kind, mode, size, mtime_ms, ctime_ms, ino, blocks, uid, gid, hash, kept) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (agent_id, path) do update set kind = excluded.kind, mode = excluded.mode, size = excluded.size, mtime_ms = excluded.mtime_ms,
         ctime_ms = excluded.ctime_ms, ino = excluded.ino, blocks = excluded.blocks, uid = excluded.uid, gid = excluded.gid, hash = excluded.hash, kept = excluded.kept`
    )
    const remove = this.db.prepare('delete from checkpoint_files where agent_id = ? and path = ?')
    const addObject = this.db.prepare('insert into checkpoint_objects (hash, bytes, created_at) values (?, ?, ?) on conflict (hash) do nothing')
    return this.db.transaction(() => {
      for (const [hash, bytes] of update.objects ?? []) addObject.run(hash, bytes, update.at ?? new Date().toISOString())
      for (const e of update.upserts)
        upsert.run(agentId, e.path, e.kind, e.mode, e.size, e.mtimeMs, e.ctimeMs, e.ino, e.blocks, e.uid, e.gid, e.hash, e.kept ? 1 : 0)
      for (const path of update.removed) remove.run(agentId, path)
      if (!checkpoint || checkpoint.changes.length === 0) return undefined
      const row = this.db
        .prepare('insert into checkpoints (id, agent_id, call_id, kind, created_at, files, new_bytes, note) values (?, ?, ?, ?, ?, ?, ?, ?) returning *')
        .get(
          checkpoint.id,
          agentId,
          checkpoint.callId,
          checkpoint.kind,
          checkpoint.createdAt,
          checkpoint.changes.length,
          checkpoint.newBytes,
          checkpoint.note ?? null
        ) as CheckpointRow
      const insert = this.db.prepare(
        `insert into checkpoint_changes (checkpoint_seq, path, change, before_kind, before_mode, before_size, before_hash, before_kept, before_uid, before_gid, after_kind, after_mode, after_size, after_hash, after_kept, after_uid, after_gid)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
      )
      const cols = (state: EntryState | null) =>
        state ? [state.kind, state.mode, state.size, state.hash, state.kept ? 1 : 0, state.uid, state.gid] : [null, null, null, null, null, null, null]
      for (const change of checkpoint.changes) insert.run(row.seq, change.path, change.change, ...cols(change.before), ...cols(change.after))
      return toRecord(row)
    })()
  }

  /** Whether the store holds an object. */
  hasObject(hash: string): boolean {
    return this.db.prepare('select 1 from checkpoint_objects where hash = ?').get(hash) !== undefined
  }

  /** An agent's checkpoints, newest first. */
  list(agentId: string, options: { limit?: number; beforeSeq?: number } = {}): CheckpointRecord[] {
    const rows = this.db
      .prepare('select * from checkpoints where agent_id = ? and seq < ? order by seq desc limit ?')
      .all(agentId, options.beforeSeq ?? Number.MAX_SAFE_INTEGER, options.limit ?? 100) as CheckpointRow[]
    return rows.map(toRecord)
  }

  /** The checkpoint of a call (by history row id) or by its own id. */
  find(idOrCall: string): CheckpointRecord | undefined {
    const row = this.db.prepare('select * from checkpoints where id = ? or call_id = ? order by seq limit 1').get(idOrCall, idOrCall) as
      | CheckpointRow
      | undefined
    return row ? toRecord(row) : undefined
  }

  /** The checkpoints of several calls, by call id (the History view marks rows that changed files). */
  forCalls(callIds: readonly string[]): Map<string, CheckpointRecord> {
    const found = new Map<string, CheckpointRecord>()
    const query = this.db.prepare('select * from checkpoints where call_id = ?')
    for (const callId of callIds) {
      const row = query.get(callId) as CheckpointRow | undefined
      if (row) found.set(callId, toRecord(row))
    }
    return found
  }

  /** An agent's most recent change of each path (files and links), newest first: at most `limit` paths. */
  recentChanges(agentId: string, limit: number): { path: Buffer; change: CheckpointChange['change']; callId: string | null; at: string }[] {
    const rows = this.db
      .prepare(
        `select c.path, c.change, k.call_id, k.kind, k.created_at from checkpoints k join checkpoint_changes c on c.checkpoint_seq = k.seq
         where k.agent_id = ? and k.pruned_at is null and coalesce(c.after_kind, c.before_kind) in ('file', 'link') order by k.seq desc limit ?`
      )
      .all(agentId, limit * 8) as { path: Buffer; change: CheckpointChange['change']; call_id: string | null; kind: CheckpointKind; created_at: string }[]
    const seen = new Set<string>()
    const recent: { path: Buffer; change: CheckpointChange['change']; callId: string | null; at: string }[] = []
    for (const row of rows) {
      const key = pathKey(Buffer.from(row.path))
      if (seen.has(key)) continue
      seen.add(key)
      recent.push({ path: Buffer.from(row.path), change: row.change, callId: row.kind === 'outside' ? null : row.call_id, at: row.created_at })
      if (recent.length >= limit) break
    }
    return recent
  }

  /** A checkpoint's changes, by path. */
  changes(seq: number): CheckpointChange[] {
    return (this.db.prepare('select * from checkpoint_changes where checkpoint_seq = ? order by path').all(seq) as ChangeRow[]).map(toChange)
  }

  /** Every change of an agent's checkpoints from `seq` on (inclusive), oldest first. */
  changesFrom(agentId: string, seq: number): (CheckpointChange & { seq: number })[] {
    const rows = this.db
      .prepare(
        'select c.* from checkpoint_changes c join checkpoints k on k.seq = c.checkpoint_seq where k.agent_id = ? and c.checkpoint_seq >= ? order by c.checkpoint_seq, c.path'
      )
      .all(agentId, seq) as ChangeRow[]
    return rows.map(toChange)
  }

  /** The bytes of the store's objects an agent's checkpoints and workspace index refer to. */
  storeBytes(agentId: string): number {
    return (
      (this.db
        .prepare(
          `select coalesce(sum(o.bytes), 0) from checkpoint_objects o where o.hash in (
             select c.before_hash from checkpoint_changes c join checkpoints k on k.seq = c.checkpoint_seq where k.agent_id = @agent
             union select c.after_hash from checkpoint_changes c join checkpoints k on k.seq = c.checkpoint_seq where k.agent_id = @agent
             union select hash from checkpoint_files where agent_id = @agent)`
        )
        .pluck()
        .get({ agent: agentId }) as number) ?? 0
    )
  }

  /** The bytes of the content an agent's current workspace files keep in the store (what a checkpoint budget must at least hold). */
  indexBytes(agentId: string): number {
    return this.db
      .prepare('select coalesce(sum(o.bytes), 0) from checkpoint_objects o where o.hash in (select hash from checkpoint_files where agent_id = ?)')
      .pluck()
      .get(agentId) as number
  }

  /** The kind of an indexed entry, or undefined when the last walk did not see it. */
  kindOf(agentId: string, path: Buffer): EntryKind | undefined {
    return (
      (this.db.prepare('select kind from checkpoint_files where agent_id = ? and path = ?').pluck().get(agentId, path) as EntryKind | undefined) ?? undefined
    )
  }

  /** Whether a link lies at or below `prefix` (path bytes; empty: anywhere in the workspace). */
  linkBelow(agentId: string, prefix: Buffer): boolean {
    if (prefix.length === 0) return this.db.prepare("select 1 from checkpoint_files where agent_id = ? and kind = 'link' limit 1").get(agentId) !== undefined
    const below = Buffer.concat([prefix, Buffer.from('/')])
    const upper = Buffer.concat([prefix, Buffer.from('0')])
    return (
      this.db
        .prepare("select 1 from checkpoint_files where agent_id = ? and kind = 'link' and (path = ? or (path >= ? and path < ?)) limit 1")
        .get(agentId, prefix, below, upper) !== undefined
    )
  }

  /** Whether every file and link at or below `prefix` (path bytes; empty: the whole workspace) has its content kept, and nothing there is a FIFO, socket or device. */
  allKept(agentId: string, prefix: Buffer): boolean {
    // A FIFO, socket or device cannot be made again: a tree holding one is not all kept.
    if (prefix.length === 0)
      return (
        this.db
          .prepare("select 1 from checkpoint_files where agent_id = ? and ((kind in ('file','link') and kept = 0) or kind = 'other') limit 1")
          .get(agentId) === undefined
      )
    const below = Buffer.concat([prefix, Buffer.from('/')])
    const upper = Buffer.concat([prefix, Buffer.from('0')])
    return (
      this.db
        .prepare(
          "select 1 from checkpoint_files where agent_id = ? and ((kind in ('file','link') and kept = 0) or kind = 'other') and (path = ? or (path >= ? and path < ?)) limit 1"
        )
        .get(agentId, prefix, below, upper) === undefined
    )
  }

  /** Prunes an agent's oldest unpruned checkpoints while `tooMany` says so; returns what was pruned. */
  prune(agentId: string, at: string, should: (state: { count: number; oldest: CheckpointRecord }) => boolean): CheckpointRecord[] {
    const pruned: CheckpointRecord[] = []
    const count = this.db.prepare('select count(*) from checkpoints where agent_id = ? and pruned_at is null').pluck()
    const oldest = this.db.prepare('select * from checkpoints where agent_id = ? and pruned_at is null order by seq limit 1')
    this.db.transaction(() => {
      for (;;) {
        const row = oldest.get(agentId) as CheckpointRow | undefined
        if (!row || !should({ count: count.get(agentId) as number, oldest: toRecord(row) })) break
        this.db.prepare('delete from checkpoint_changes where checkpoint_seq = ?').run(row.seq)
        this.db.prepare('update checkpoints set pruned_at = ? where seq = ?').run(at, row.seq)
        pruned.push({ ...toRecord(row), prunedAt: at })
      }
    })()
    return pruned
  }

  /** Objects nothing refers to any more (after pruning or an agent removed); their rows are deleted, their hashes returned for the files to go. */
  collectGarbage(): string[] {
    return this.db.transaction(() => {
      const orphans = this.db
        .prepare(
          `select hash from checkpoint_objects o where not exists (select 1 from checkpoint_files f where f.hash = o.hash)
             and not exists (select 1 from checkpoint_changes c where c.before_hash = o.hash)
             and not exists (select 1 from checkpoint_changes c where c.after_hash = o.hash)`
        )
        .pluck()
        .all() as string[]
      const remove = this.db.prepare('delete from checkpoint_objects where hash = ?')
      for (const hash of orphans) remove.run(hash)
      return orphans
    })()
  }

  /** Forgets an agent's checkpoints and index (the agent was removed). */
  forgetAgent(agentId: string): void {
    this.db.transaction(() => {
      this.db.prepare('delete from checkpoint_changes where checkpoint_seq in (select seq from checkpoints where agent_id = ?)').run(agentId)
      this.db.prepare('delete from checkpoints where agent_id = ?').run(agentId)
      this.db.prepare('delete from checkpoint_files where agent_id = ?').run(agentId)
    })()
  }
}
