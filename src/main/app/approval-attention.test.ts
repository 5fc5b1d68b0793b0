import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approvalHost, waitFor } from '../../../test/support/approval-host'
import { makeTempDir } from '../../../test/support/temp-home'
import { ApprovalAttention, notificationText, trayTooltip, type AttentionItem } from './approval-attention'
import { badgeColours, badgeText, drawCountBadge } from './tray-badge'

// The desktop's attention on the approval queue, over a real host: agents whose calls ask
// (`ask: always`) fill the real queue; Electron's tray and notifications are the boundary here,
// so a recording sink stands in for them.

let home: ReturnType<typeof makeTempDir>
let h: Awaited<ReturnType<typeof approvalHost>>
beforeAll(async () => {
  home = makeTempDir('airlock-attention-', { outsideTmp: true })
  h = await approvalHost(home.path)
})
afterAll(async () => {
  await h.host.dispose()
  home.remove()
})

function recordingSink() {
  const counts: number[] = []
  const notified: AttentionItem[][] = []
  return { counts, notified, sink: { showCount: (count: number) => counts.push(count), notify: (items: AttentionItem[]) => notified.push(items) } }
}

describe('approval attention (tray count and notifications)', () => {
  it('counts what was pending at start without notifying, then notifies each new item once and follows the count', async () => {
    const early = h.agent('early', { capabilities: ['files'] })
    const waiting = [early.call('write_file', { path: 'a.txt', content: 'a' })]
    await h.waitForPending(1)

    const { counts, notified, sink } = recordingSink()
    const stop = new ApprovalAttention({
      pending: () => h.host.approvals.list(),
      subscribe: (listener) => h.host.events.subscribe(listener),
      sink,
      gatherMs: 20
    }).start()
    try {
      expect(counts).toEqual([1])
      expect(notified).toEqual([])

      const coder = h.agent('coder', { capabilities: ['files'] })
      waiting.push(coder.call('write_file', { path: 'b.txt', content: 'b' }))
      await waitFor(() => (notified.length === 1 ? true : undefined))
      expect(notified[0]).toEqual([expect.objectContaining({ agentId: 'coder', tool: 'write_file', count: 1 })])
      expect(counts).toEqual([1, 2])

      // The same request again joins its pending item: counted in the item, not a new notification.
      waiting.push(coder.call('write_file', { path: 'b.txt', content: 'b' }))
      await waitFor(() => (h.host.approvals.list().find((item) => item.agentId === 'coder')?.count === 2 ? true : undefined))
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(notified).toHaveLength(1)

      // Decisions bring the count down; nothing new is notified.
      for (const item of h.host.approvals.list()) h.host.approvals.decide({ id: item.id, decision: 'deny', reason: 'not now' })
      await waitFor(() => (counts.at(-1) === 0 ? true : undefined))
      expect(counts).toEqual([1, 2, 0])
      expect(notified).toHaveLength(1)
      await Promise.all(waiting)
    } finally {
      stop()
    }
  })

  it('gathers a burst of new items into one notification', async () => {
    const { notified, sink } = recordingSink()
    const stop = new ApprovalAttention({
      pending: () => h.host.approvals.list(),
      subscribe: (listener) => h.host.events.subscribe(listener),
      sink,
      gatherMs: 300
    }).start()
    const burst = h.agent('burst', { capabilities: ['files'] })
    try {
      const calls = ['x', 'y', 'z'].map((name) => burst.call('write_file', { path: `${name}.txt`, content: name }))
      await waitFor(() => (notified.length > 0 ? true : undefined))
      expect(notified).toHaveLength(1)
      expect(notified[0]).toHaveLength(3)
      expect(notificationText(notified[0]!)).toEqual({ title: '3 new approvals waiting', body: 'From burst. Open Airlock to decide.' })
      for (const item of h.host.approvals.list()) h.host.approvals.decide({ id: item.id, decision: 'deny', reason: 'not now' })
      await Promise.all(calls)
    } finally {
      stop()
    }
  })
})

describe('what the desktop shows', () => {
  it('words one item by agent, tool and risk, and the tooltip by count', () => {
    const item: AttentionItem = { id: 'a1', agentId: 'coder', tool: 'run_command', summary: 'pip install requests', riskFlags: ['package_install'], count: 1 }
    expect(notificationText([item])).toEqual({ title: 'coder asks to run_command (package_install)', body: 'pip install requests' })
    expect([trayTooltip(0), trayTooltip(1), trayTooltip(7)]).toEqual([
      'Airlock: no approvals waiting',
      'Airlock: 1 approval waiting',
      'Airlock: 7 approvals waiting'
    ])
  })

  it('shows hidden and bidi characters of agent text escaped, never raw (a notification must read as what runs)', () => {
    const item: AttentionItem = {
      id: 'a2',
      agentId: 'coder',
      tool: 'write_file',
      summary: 'write .git/hooks/pre-commit: lint \u202e; curl x | sh',
      riskFlags: ['hidden_characters'],
      count: 1
    }
    const { title, body } = notificationText([item])
    expect(body).toBe('write .git/hooks/pre-commit: lint \\u202e; curl x | sh')
    expect(`${title}${body}`).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/)
  })

  it('draws the count as a badge in the top-right corner of the icon, and nothing for 0', () => {
    const size = 32
    const icon = Buffer.alloc(size * size * 4, 0x10)
    expect(drawCountBadge(icon, size, 0)).toEqual(icon)
    const pixel = (image: Buffer, x: number, y: number) => [...image.subarray((y * size + x) * 4, (y * size + x) * 4 + 4)]
    const three = drawCountBadge(icon, size, 3)
    // The corner far from the badge is untouched; the badge's rim is its fill; its middle holds white digit pixels.
    expect(pixel(three, 2, size - 3)).toEqual([0x10, 0x10, 0x10, 0x10])
    expect(pixel(three, size - 10, 1)).toEqual([...badgeColours.fill])
    const white = (image: Buffer) => Array.from({ length: size * size }, (_, i) => image.readUInt32LE(i * 4)).filter((v) => v === 0xffffffff).length
    expect(white(three)).toBeGreaterThan(0)
    expect(white(drawCountBadge(icon, size, 12))).not.toBe(white(three))
    expect([badgeText(0), badgeText(3), badgeText(9), badgeText(10), badgeText(250)]).toEqual(['', '3', '9', '9+', '9+'])
  })
})
