import { closeSync } from 'node:fs'
import { entriesKey, type HiddenEntry } from '../../core/sandbox/workspace-entries'
import type { OpenBind } from '../bubblewrap/sandbox-binds'
import type { ProtectedBinds } from '../bubblewrap/protected-binds'
import type { GvisorSpare } from './gvisor-run'

/** Boots a spare with these protected binds and hidden entries; spawns synchronously (the binds may be closed once it returns). */
export type SpareBoot = (pinned: OpenBind[], hidden: HiddenEntry[]) => Promise<GvisorSpare>

/**
 * Keeps one gVisor sandbox of a handle booted ahead, so that a run costs its program and not the
 * sandbox's start (~0.2 s). Each spare is used by one run only and never again: warm, and still
 * clean between calls. A spare carries the handle's binds, and its workspaces' protected paths and
 * hidden entries as they were when it booted; a run takes it only while those are still what
 * exists (the same key rule as bubblewrap's spare launchers: the key is read again after the binds
 * are opened, and a spare whose binds may not match it is never taken).
 */
export class GvisorSpares {
  private next?: { spare: Promise<GvisorSpare | undefined>; key: string }
  private closed = false

  constructor(
    private readonly boot: SpareBoot,
    private readonly protect: ProtectedBinds | undefined,
    private readonly hide: () => HiddenEntry[]
  ) {}

  /** The waiting spare if it still protects and hides what exists now (booting ones are waited for); else undefined. */
  async take(): Promise<GvisorSpare | undefined> {
    const next = this.next
    this.next = undefined
    if (!next || this.closed) return undefined
    const spare = await next.spare
    if (spare && spare.alive() && next.key === this.key(this.hide())) return spare
    void spare?.discard()
    return undefined
  }

  /** Boots the next spare unless one waits (a spare that fails to boot is dropped: the next run boots its own). */
  replenish(): void {
    if (this.closed || this.next) return
    const hidden = this.hide()
    const key = this.key(hidden)
    let pinned: OpenBind[] = []
    try {
      pinned = this.protect?.open() ?? []
      const spare = this.boot(pinned, hidden).catch(() => undefined)
      this.next = { spare, key: this.key(hidden) === key ? key : `changed while opened: ${key}` }
    } catch {
      // A protected path could not be opened now; the next run opens its own.
    } finally {
      for (const bind of pinned) closeSync(bind.fd)
    }
  }

  /** Ends the waiting spare; no more. */
  async close(): Promise<void> {
    this.closed = true
    const next = this.next
    this.next = undefined
    await (await next?.spare)?.discard()
  }

  private key(hidden: readonly HiddenEntry[]): string {
    return `${this.protect?.key() ?? ''}\n--\n${entriesKey(hidden)}`
  }
}
