import type { ApprovalDecisionInput, ApprovalView } from '@shared/approvals'
import type { StateCreator } from 'zustand'
import { coalescedRefresh } from '../../../lib/coalesced-refresh'
import { newestFirst, selectionAfterRemoval, stepSelection } from '../lib/queue'
import type { ApprovalsState } from './approvals-state'
import type { ApprovalsClient } from './client'

/** The live queue: pending items, the operator's selection, and the decisions made here. */
export type QueueSlice = {
  /** Pending items across agents, newest first. */
  items: ApprovalView[]
  queueStatus: 'idle' | 'loading' | 'ready' | 'error'
  queueError?: string
  selectedId?: string
  /**
   * The selected item when it is not (or no longer) pending: opened from a link, or decided
   * elsewhere (the CLI, a timeout) while selected. Shown read-only; the selection stays on it so a
   * key never decides an item the operator did not see.
   */
  settled?: ApprovalView
  settledError?: string
  /** The item whose decision is on its way (buttons and keys wait for it). */
  decidingId?: string
  decideError?: { id: string; message: string }
  /** The last item decided here, as the host recorded it (the status line says what happened). */
  lastDecided?: ApprovalView
  refreshQueue(): Promise<void>
  /** Selects an item of the list, or opens one that is not pending (`approvals.get`). */
  select(id: string): Promise<void>
  /** Leaves a read-only item for the queue: selects the newest pending item (or nothing). */
  backToQueue(): void
  /** Moves the selection `delta` items down (older) or up (newer) the list. */
  step(delta: number): void
  /** Sends a decision on an item; true when the host recorded it. */
  decide(input: ApprovalDecisionInput): Promise<boolean>
  /** Pending items picked for a bulk decision, in the list's order. */
  checked: string[]
  /** Picks an item for a bulk decision, or takes it out; `range` picks every item from the last one picked to it (shift-click). */
  toggleChecked(id: string, range?: boolean): void
  /** Picks every pending item of one agent. */
  checkAgent(agentId: string | null): void
  clearChecked(): void
  /**
   * Sends one decision per item, one after another (each agent gets its own answer); returns how
   * many the host recorded and the messages of those it refused (decided elsewhere meanwhile).
   */
  decideMany(inputs: ApprovalDecisionInput[]): Promise<{ decided: number; refused: string[] }>
  dismissDecideError(): void
  /**
   * Asks the host for what redaction hid in a pending request (recorded in the audit log) and hands
   * the answer back without keeping it: the values live only in the pane that shows them.
   */
  revealInput(id: string): ReturnType<ApprovalsClient['approvals']['reveal']>
}

/** The queue slice over a client of the contract. */
export const createQueueSlice =
  (client: ApprovalsClient): StateCreator<ApprovalsState, [], [], QueueSlice> =>
  (set, get) => {
    // Items decided here: a list answer that left before the decision landed must not bring them back.
    const decidedHere = new Set<string>()

    const loadSettled = async (id: string) => {
      const result = await client.approvals.get({ id })
      if (get().selectedId !== id) return
      if (result.ok) set({ settled: result.value, settledError: undefined })
      else set({ settled: undefined, settledError: result.error.message })
    }

    // The last item picked by itself: a shift-click picks the range from it.
    let anchor: string | undefined

    const refreshQueue = coalescedRefresh(async () => {
      if (get().queueStatus === 'idle') set({ queueStatus: 'loading' })
      const result = await client.approvals.list({})
      if (!result.ok) return set({ queueStatus: get().queueStatus === 'ready' ? 'ready' : 'error', queueError: result.error.message })
      const items = newestFirst(result.value.filter((item) => !decidedHere.has(item.id)))
      const { items: before, selectedId, settled } = get()
      const stillPending = selectedId !== undefined && items.some((item) => item.id === selectedId)
      const leftElsewhere = selectedId !== undefined && !stillPending && before.some((item) => item.id === selectedId)
      const pending = new Set(items.map((item) => item.id))
      set({
        items,
        queueStatus: 'ready',
        queueError: undefined,
        selectedId: selectedId ?? items[0]?.id,
        checked: get().checked.filter((id) => pending.has(id))
      })
      if (selectedId !== undefined && (leftElsewhere || (!stillPending && settled?.id === selectedId))) await loadSettled(selectedId)
    })

    return {
      items: [],
      queueStatus: 'idle',
      refreshQueue,
      async select(id) {
        set({ selectedId: id, settledError: undefined, decideError: undefined })
        if (get().items.some((item) => item.id === id)) return set({ settled: undefined })
        if (get().settled?.id !== id) set({ settled: undefined })
        await loadSettled(id)
      },
      backToQueue() {
        const { items, selectedId } = get()
        if (selectedId !== undefined && items.some((item) => item.id === selectedId)) return
        set({ selectedId: items[0]?.id, settled: undefined, settledError: undefined, decideError: undefined })
      },
      step(delta) {
        const { items, selectedId } = get()
        const next = stepSelection(
          items.map((item) => item.id),
          selectedId,
          delta
        )
        if (next !== undefined && next !== selectedId) set({ selectedId: next, settled: undefined, settledError: undefined, decideError: undefined })
      },
      async decide(input) {
        if (get().decidingId !== undefined) return false
        set({ decidingId: input.id, decideError: undefined })
        const result = await client.approvals.decide(input)
        if (!result.ok) {
          set({ decidingId: undefined, decideError: { id: input.id, message: result.error.message } })
          void refreshQueue()
          return false
        }
        decidedHere.add(input.id)
        const { items, selectedId, settled } = get()
        const next =
          selectedId === input.id
            ? selectionAfterRemoval(
                items.map((item) => item.id),
                input.id
              )
            : selectedId
        set({
          items: items.filter((item) => item.id !== input.id),
          checked: get().checked.filter((id) => id !== input.id),
          selectedId: next,
          settled: settled?.id === input.id ? undefined : settled,
          decidingId: undefined,
          lastDecided: result.value
        })
        return true
      },
      dismissDecideError: () => set({ decideError: undefined }),
      revealInput: (id) => client.approvals.reveal({ id }),
      checked: [],
      toggleChecked(id, range) {
        const { items, checked } = get()
        const order = items.map((item) => item.id)
        if (!order.includes(id)) return
        if (range && anchor !== undefined && order.includes(anchor)) {
          const [from, to] = [order.indexOf(anchor), order.indexOf(id)].sort((a, b) => a - b) as [number, number]
          const picked = new Set([...checked, ...order.slice(from, to + 1)])
          return set({ checked: order.filter((item) => picked.has(item)) })
        }
        anchor = id
        const picked = new Set(checked)
        if (picked.has(id)) picked.delete(id)
        else picked.add(id)
        set({ checked: order.filter((item) => picked.has(item)) })
      },
      checkAgent(agentId) {
        const { items, checked } = get()
        const picked = new Set([...checked, ...items.filter((item) => item.agentId === agentId).map((item) => item.id)])
        set({ checked: items.map((item) => item.id).filter((id) => picked.has(id)) })
      },
      clearChecked: () => set({ checked: [] }),
      async decideMany(inputs) {
        let decided = 0
        const refused: string[] = []
        for (const input of inputs) {
          // One at a time: `decide` refuses while another decision is on its way.
          while (get().decidingId !== undefined) await new Promise((resolve) => setTimeout(resolve, 20))
          if (await get().decide(input)) decided += 1
          else refused.push(get().decideError?.message ?? `${input.id}: the host refused the decision`)
        }
        if (refused.length === 0) set({ decideError: undefined })
        return { decided, refused }
      }
    }
  }
