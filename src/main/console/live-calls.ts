import type { HistoryLive, LiveLines } from '@shared/ipc/history'
import type { ActionDispatcher } from '../core'

/** How often a running call's new lines are told to the consoles, at most (ms). */
const feedIntervalMs = 250
/** The most characters of lines one telling carries (a flood is cut to its newest lines). */
const feedChars = 64 * 1024

/** What live calls need of the dispatcher: its live output, what it decided so far, and cancel. */
export type LiveCallsDispatcher = Pick<ActionDispatcher, 'liveOutput' | 'cancel' | 'decided'>

/**
 * The calls in flight as the console watches them: their output as it arrives (SPEC §11 History
 * drawer), pushed to every console at most four times a second per call, each push the lines
 * since the last one (the newest 64 Ki characters of them, the rest counted as skipped); a console
 * that opens a call late reads what is kept with `live`. And the operator's Cancel.
 */
export class LiveCalls {
  /** Per call being told: the number of the last line told, and the push waiting for its interval. */
  private readonly feeds = new Map<string, { told: number; timer?: ReturnType<typeof setTimeout> }>()

  constructor(
    private readonly dispatcher: LiveCallsDispatcher,
    /** Pushes new lines of one call to the consoles (`history.output`). */
    private readonly publish: (lines: LiveLines) => void
  ) {
    dispatcher.liveOutput.onLines((callId) => this.schedule(callId))
  }

  /** A call's output after line `after` and what is decided so far; `running: false` once it ended (its record has it all). */
  live(id: string, after = 0): HistoryLive {
    // In flight from its start (its output is listened to only once it runs: none while it waits).
    const decided = this.dispatcher.decided(id)
    if (!decided) return { id, running: false, lines: [], skipped: 0 }
    const lines = this.dispatcher.liveOutput.linesAfter(id, after, feedChars) ?? { lines: [], skipped: 0 }
    return { id, running: true, ...lines, ...(decided.policy ? { policy: decided.policy } : {}), ...(decided.approval ? { approval: decided.approval } : {}) }
  }

  /** The operator's Cancel: false when the call is not in flight (it had ended). */
  cancel(id: string): { cancelled: boolean } {
    return { cancelled: this.dispatcher.cancel(id) }
  }

  /** Stops every pending push (the host is closing). */
  dispose(): void {
    for (const feed of this.feeds.values()) clearTimeout(feed.timer)
    this.feeds.clear()
  }

  private schedule(callId: string): void {
    const feed = this.feeds.get(callId) ?? { told: 0 }
    this.feeds.set(callId, feed)
    if (feed.timer) return
    feed.timer = setTimeout(() => this.tell(callId), feedIntervalMs)
    feed.timer.unref?.()
  }

  private tell(callId: string): void {
    const feed = this.feeds.get(callId)
    if (!feed) return
    feed.timer = undefined
    const lines = this.dispatcher.liveOutput.linesAfter(callId, feed.told, feedChars)
    // Feeds of calls that ended are forgotten here: the record has their whole output.
    for (const [id, other] of this.feeds) if (!other.timer && !this.dispatcher.liveOutput.has(id)) this.feeds.delete(id)
    if (!lines || lines.lines.length === 0) return
    feed.told = lines.lines.at(-1)!.n
    this.publish({ id: callId, ...lines })
  }
}
