import { visibleText } from '@shared/visible-text'
import type { ApprovalView } from '@shared/approvals'
import { channelOf } from '@shared/ipc'
import type { ContractEventListener } from '../ipc'

/** A pending item as a notification names it. */
export type AttentionItem = Pick<ApprovalView, 'id' | 'agentId' | 'tool' | 'summary' | 'riskFlags' | 'count'>

/** Where the desktop shows the queue (the tray and native notifications in Electron). */
export type AttentionSink = {
  /** The number of pending items changed (tray tooltip and badge, the dock/launcher count). */
  showCount(count: number): void
  /** Items arrived in the queue since the last look, newest first. */
  notify(items: AttentionItem[]): void
}

/** What the attention needs: the pending items, the contract event feed, where to show, how long to gather a burst. */
export type ApprovalAttentionOptions = {
  pending: () => ApprovalView[]
  subscribe: (listener: ContractEventListener) => () => void
  sink: AttentionSink
  /** Queue changes within this many ms are looked at once (a burst of requests is one notification); default 150. */
  gatherMs?: number
}

const approvalsChanged = channelOf('approvals', 'changed')

/**
 * Keeps the desktop's attention on the approval queue: the pending count whenever the queue
 * changes, and a notification for each item that was not pending at the last look (an identical
 * request joining its pending item is not new). Items pending at start are counted, not notified.
 */
export class ApprovalAttention {
  private known = new Set<string>()
  private count = -1
  private timer?: NodeJS.Timeout

  constructor(private readonly options: ApprovalAttentionOptions) {}

  /** Shows the current count and follows the queue; returns the stopper. */
  start(): () => void {
    const items = this.options.pending()
    this.known = new Set(items.map((item) => item.id))
    this.show(items.length)
    const unsubscribe = this.options.subscribe((channel) => {
      if (channel !== approvalsChanged || this.timer) return
      this.timer = setTimeout(() => {
        this.timer = undefined
        this.look()
      }, this.options.gatherMs ?? 150)
    })
    return () => {
      unsubscribe()
      clearTimeout(this.timer)
      this.timer = undefined
    }
  }

  private look(): void {
    const items = this.options.pending()
    const fresh = items.filter((item) => !this.known.has(item.id))
    this.known = new Set(items.map((item) => item.id))
    this.show(items.length)
    if (fresh.length > 0)
      this.options.sink.notify(fresh.map(({ id, agentId, tool, summary, riskFlags, count }) => ({ id, agentId, tool, summary, riskFlags, count })))
  }

  private show(count: number): void {
    if (count === this.count) return
    this.count = count
    this.options.sink.showCount(count)
  }
}

/** A notification's title and body for new items: one item by agent and summary, several as a count. */
export function notificationText(items: readonly AttentionItem[]): { title: string; body: string } {
  const [first] = items
  if (items.length === 1 && first) {
    const risk = first.riskFlags.length > 0 ? ` (${first.riskFlags.join(', ')})` : ''
    // Agent text, escaped visibly: a notification must not read differently from what runs (bidi, controls).
    return { title: visibleText(`${first.agentId ?? 'An agent'} asks to ${first.tool}${risk}`), body: visibleText(first.summary.slice(0, 200)) }
  }
  const agents = [...new Set(items.map((item) => item.agentId ?? 'unknown'))]
  return {
    title: `${items.length} new approvals waiting`,
    body: `From ${agents.slice(0, 3).join(', ')}${agents.length > 3 ? ` and ${agents.length - 3} more` : ''}. Open Airlock to decide.`
  }
}

/** The tray's tooltip for a pending count. */
export function trayTooltip(count: number): string {
  if (count === 0) return 'Airlock: no approvals waiting'
  return `Airlock: ${count} approval${count === 1 ? '' : 's'} waiting`
}
