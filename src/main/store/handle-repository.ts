import type { Database } from 'better-sqlite3'
import type { HandleStore, ResourceHandleRecord } from '../core'

type Row = {
  handle_id: string
  requirement_id: string
  kind: string
  scope: ResourceHandleRecord['scope']
  owner_id: string | null
  resource_key: string
  provider_id: string
  status: ResourceHandleRecord['status']
  ref_count: number
  action_call_id: string | null
  policy_json: string
  meta_json: string
  created_at: string
}

/**
 * The store side of the core's `HandleStore` port: every live or quarantined handle is mirrored
 * here so that after a crash the next start can find what was left running (SPEC §10).
 */
export class HandleRepository implements HandleStore {
  constructor(private readonly db: Database) {}

  /** Inserts or updates a handle record. */
  save(handle: ResourceHandleRecord): void {
    this.db
      .prepare(
        `insert into handles (handle_id, requirement_id, kind, scope, owner_id, resource_key, provider_id, status, ref_count,
           action_call_id, policy_json, meta_json, created_at, updated_at)
         values (@handleId, @requirementId, @kind, @scope, @ownerId, @resourceKey, @providerId, @status, @refCount,
           @actionCallId, @policy, @meta, @createdAt, @updatedAt)
         on conflict(handle_id) do update set status = excluded.status, ref_count = excluded.ref_count,
           meta_json = excluded.meta_json, updated_at = excluded.updated_at`
      )
      .run({
        handleId: handle.handleId,
        requirementId: handle.requirementId,
        kind: handle.kind,
        scope: handle.scope,
        ownerId: handle.ownerId ?? null,
        resourceKey: handle.resourceKey,
        providerId: handle.providerId,
        status: handle.status,
        refCount: handle.refCount,
        actionCallId: handle.actionCallId ?? null,
        policy: JSON.stringify(handle.policy),
        meta: JSON.stringify(handle.meta),
        createdAt: handle.createdAt,
        updatedAt: new Date().toISOString()
      })
  }

  /** Forgets a handle that was released. */
  remove(handleId: string): void {
    this.db.prepare('delete from handles where handle_id = ?').run(handleId)
  }

  /** Every handle still recorded (after a crash: what was left running). */
  list(): ResourceHandleRecord[] {
    const rows = this.db.prepare('select * from handles order by created_at').all() as Row[]
    return rows.map((row) => ({
      handleId: row.handle_id,
      requirementId: row.requirement_id,
      kind: row.kind,
      scope: row.scope,
      ownerId: row.owner_id ?? undefined,
      resourceKey: row.resource_key,
      providerId: row.provider_id,
      status: row.status,
      refCount: row.ref_count,
      actionCallId: row.action_call_id ?? undefined,
      policy: JSON.parse(row.policy_json),
      meta: JSON.parse(row.meta_json),
      createdAt: row.created_at
    }))
  }
}
