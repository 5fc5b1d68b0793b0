import type { CheckpointRecord, CheckpointRepository } from '../../store'
import type { ContentStore } from './content-store'
import type { CheckpointSettings } from './checkpoint-options'

const dayMs = 24 * 3600 * 1000

/**
 * The retention settings (`checkpoints.keep_days`, `keep_count`, `max_store_mb`) applied after each
 * recorded checkpoint, oldest first, and the collection of content nothing refers to any more.
 */
export class CheckpointRetention {
  private readonly storedSinceSizeCheck = new Map<string, number>()
  /** Walks in flight (any agent), and whether pruning left content to collect once none is. */
  private walking = 0
  private garbage = false

  constructor(
    private readonly repository: CheckpointRepository,
    private readonly store: ContentStore,
    private readonly onPruned?: (agentId: string, pruned: CheckpointRecord[]) => void
  ) {}

  /**
   * Prunes an agent's oldest checkpoints past the retention settings: count and age at every
   * checkpoint (two indexed reads), the store's size (a query over all the agent's changes) once
   * what was stored since the last size check could have crossed the budget — every 1/64 of it.
   * The checkpoint just recorded (`newest`) is never pruned: it may hold a deletion let run because
   * it could be undone.
   */
  prune(agentId: string, settings: CheckpointSettings, added: number, newest: number): void {
    const now = Date.now()
    const since = (this.storedSinceSizeCheck.get(agentId) ?? Number.POSITIVE_INFINITY) + added
    const checkSize = since >= settings.maxStoreBytes / 64
    this.storedSinceSizeCheck.set(agentId, checkSize ? 0 : since)
    let bytes: number | undefined
    const pruned = this.repository.prune(agentId, new Date(now).toISOString(), ({ count, oldest }) => {
      if (oldest.seq >= newest) return false
      if (count > settings.keepCount || now - Date.parse(oldest.createdAt) > settings.keepDays * dayMs) return true
      if (!checkSize) return false
      bytes ??= this.repository.storeBytes(agentId)
      if (bytes <= settings.maxStoreBytes) return false
      bytes = undefined
      return true
    })
    if (pruned.length === 0) return
    this.garbage = true
    this.onPruned?.(agentId, pruned)
  }

  /** Something may no longer be referred to (an agent forgotten): collected as soon as no walk runs. */
  dropped(): void {
    this.garbage = true
    this.collect()
  }

  /** Runs a walk; content is collected only while none is in flight (see `collect`). */
  async walk<T>(run: () => Promise<T>): Promise<T> {
    this.walking += 1
    try {
      return await run()
    } finally {
      this.walking -= 1
      this.collect()
    }
  }

  /**
   * Removes the content nothing refers to any more, only while no walk is in flight: a walk that found
   * a version already stored does not store it again, and must not see it collected before its own
   * checkpoint refers to it.
   */
  private collect(): void {
    if (!this.garbage || this.walking > 0) return
    this.garbage = false
    this.store.remove(this.repository.collectGarbage())
  }
}
