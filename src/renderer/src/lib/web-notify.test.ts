import type { ApprovalView } from '@shared/approvals'
import { describe, expect, it } from 'vitest'
import { newRequests, notificationOf } from './web-notify'

const item = (id: string, patch: Partial<ApprovalView> = {}) =>
  ({ id, agentId: 'coder', tool: 'run_command', summary: `coder: echo ${id}`, ...patch }) as ApprovalView

describe('web notifications of new requests', () => {
  it('notifies only what is new since the last list, never the first list', () => {
    expect(newRequests(undefined, [item('a')])).toEqual([])
    expect(newRequests(new Set(['a']), [item('b'), item('a')]).map((entry) => entry.id)).toEqual(['b'])
  })

  it('says who asks for what, hidden characters escaped, the body bounded', () => {
    expect(notificationOf(item('a', { tool: 'run\u202ecommand', summary: `coder: ${'x'.repeat(500)}` }))).toEqual({
      title: 'coder asks: run\\u202ecommand',
      body: `coder: ${'x'.repeat(193)}`
    })
  })
})
