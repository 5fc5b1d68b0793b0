import type { EgressRecord } from '@shared/network'

/** The key of connections credited to no single run. */
const shared = ''

/** The most connections one run's record keeps of each kind; beyond, they are counted. */
const keep = { allowed: 10_000, denied: 1_000 }

type Bucket = {
  entries: EgressRecord[]
  live: Map<EgressRecord, () => { up: number; down: number }>
  kept: { allowed: number; denied: number }
  dropped: { allowed: number; denied: number }
}

/**
 * What one endpoint's connections were, kept per run (the token the run's bridge sends first)
 * until that run's call takes them: two calls of one session running at once each get their own.
 * An allowed connection is recorded when it is admitted, its byte counts read when the call takes
 * it (or when it closes, whichever is first), so a flood of refusals can never push it out; past
 * the limits a run's record says how many more there were. Connections credited to no single run
 * (`shared`: several runs of a windowed endpoint going on at once) go to the first of them to end.
 */
export class EgressLedger {
  private readonly runs = new Map<string, Bucket>()
  private readonly expected = new Set<string>()

  /** A run is about to start with this token: its connections are kept apart until `drain(run)`. */
  expect(run: string): void {
    this.expected.add(run)
  }

  /** True while the run with this token is going on (started, not yet drained). */
  expects(run: string): boolean {
    return this.expected.has(run)
  }

  /**
   * Whom a connection of a windowed endpoint is credited to now: the one run going on, `shared`
   * when several are, undefined when none is (the connection is refused).
   */
  current(): string | undefined {
    if (this.expected.size === 0) return undefined
    return this.expected.size === 1 ? this.expected.values().next().value! : shared
  }

  /** Records a decided connection; for an allowed one `bytes` reads its counts while it is open. Returns `closed`, to fix the counts. */
  add(run: string | undefined, entry: EgressRecord, bytes?: () => { up: number; down: number }): { closed(): void } {
    // Decided after its run ended (the operator answered late): that call's record is already
    // written, and no other call may be credited with it.
    const going = run !== undefined && (run === shared ? this.expected.size > 0 : this.expected.has(run))
    if (!going) return { closed: () => undefined }
    const bucket = this.bucket(run)
    if (bucket.kept[entry.decision] >= keep[entry.decision]) {
      bucket.dropped[entry.decision] += 1
      return { closed: () => undefined }
    }
    bucket.kept[entry.decision] += 1
    bucket.entries.push(entry)
    if (!bytes) return { closed: () => undefined }
    bucket.live.set(entry, bytes)
    return {
      closed: () => {
        if (!bucket.live.delete(entry)) return
        const counts = bytes()
        entry.bytesUp = counts.up
        entry.bytesDown = counts.down
      }
    }
  }

  /** Takes what `run` did (with the shared connections), byte counts as of now. */
  drain(run: string): EgressRecord[] {
    this.expected.delete(run)
    const taken: EgressRecord[] = []
    for (const key of new Set([run, shared])) {
      const bucket = this.runs.get(key)
      if (!bucket) continue
      this.runs.delete(key)
      for (const [entry, bytes] of bucket.live) {
        const counts = bytes()
        entry.bytesUp = counts.up
        entry.bytesDown = counts.down
      }
      taken.push(...bucket.entries)
      for (const decision of ['allowed', 'denied'] as const) {
        const more = bucket.dropped[decision]
        if (more > 0)
          taken.push({
            host: '(not recorded)',
            port: 0,
            decision,
            reason: `${more} more ${decision} connections were not recorded (at most ${keep[decision]} per call)`,
            bytesUp: 0,
            bytesDown: 0,
            at: new Date().toISOString()
          })
      }
    }
    return taken
  }

  private bucket(run: string): Bucket {
    let bucket = this.runs.get(run)
    if (!bucket) this.runs.set(run, (bucket = { entries: [], live: new Map(), kept: { allowed: 0, denied: 0 }, dropped: { allowed: 0, denied: 0 } }))
    return bucket
  }
}
