import type { ApprovalView } from '@shared/approvals'
import { describe, expect, it } from 'vitest'
import {
  classificationLine,
  newestFirst,
  summaryText,
  taintOf,
  writeDownOf,
  outcomeTitle,
  rememberBlocker,
  riskOf,
  selectionAfterRemoval,
  sessionBlocker,
  stepSelection,
  timeLeft
} from './queue'

const at = (iso: string) => ({ createdAt: iso }) as ApprovalView

describe('queue selectors', () => {
  it('orders newest first with a stable tie-break', () => {
    const items = [
      { ...at('2024-01-01T00:00:01Z'), id: 'b' },
      { ...at('2024-01-01T00:00:03Z'), id: 'c' },
      { ...at('2024-01-01T00:00:01Z'), id: 'a' }
    ]
    expect(newestFirst(items).map((item) => item.id)).toEqual(['c', 'a', 'b'])
  })

  it('moves the selection within the list, clamped, starting at the top', () => {
    const ids = ['x', 'y', 'z']
    expect(stepSelection(ids, undefined, 1)).toBe('x')
    expect(stepSelection(ids, 'gone', -1)).toBe('x')
    expect(stepSelection(ids, 'x', 1)).toBe('y')
    expect(stepSelection(ids, 'z', 1)).toBe('z')
    expect(stepSelection(ids, 'x', -1)).toBe('x')
    expect(stepSelection([], 'x', 1)).toBeUndefined()
  })

  it('after a decision selects the item that took its place, else the one above', () => {
    expect(selectionAfterRemoval(['x', 'y', 'z'], 'y')).toBe('z')
    expect(selectionAfterRemoval(['x', 'y', 'z'], 'z')).toBe('y')
    expect(selectionAfterRemoval(['x'], 'x')).toBeUndefined()
  })

  it('says why an item cannot be remembered for the session or as a rule', () => {
    const rule = { matcher: { kind: 'command' as const, commands: [{ prefix: ['ls'] }] }, description: 'run_command: ls', riskFlags: [] }
    expect(rememberBlocker({ proposedRule: null })).toMatch(/approve it once or deny it/)
    expect(rememberBlocker({ proposedRule: rule })).toBeUndefined()
    expect(sessionBlocker({ proposedRule: rule, sessionId: null, agentId: 'a' })).toMatch(/no agent session/)
    expect(sessionBlocker({ proposedRule: rule, sessionId: 's', agentId: 'a' })).toBeUndefined()
  })

  it('names risk flags in words with a tone, unknown ones neutral', () => {
    expect(riskOf('deletion')).toMatchObject({ tone: 'bad', label: 'deletion' })
    expect(riskOf('package_install')).toMatchObject({ tone: 'warn', label: 'package install' })
    expect(riskOf('brand_new')).toMatchObject({ tone: 'neutral', label: 'brand new' })
  })

  it('counts down the time left', () => {
    const now = Date.parse('2024-01-01T00:00:00Z')
    expect(timeLeft('2024-01-01T00:09:48Z', now)).toBe('9m 48s')
    expect(timeLeft('2024-01-01T00:00:07Z', now)).toBe('7s')
    expect(timeLeft('2024-01-01T02:05:00Z', now)).toBe('2h 5m')
    expect(timeLeft('2023-12-31T23:59:00Z', now)).toBe('expired')
  })

  it('says outcomes and write-downs in words', () => {
    expect(outcomeTitle({ decision: 'approve', scope: 'session', reason: '', by: 'console', decidedAt: '', delivered: 1 })).toBe('Approved for this session')
    expect(outcomeTitle({ decision: 'expire', reason: '', by: 'timeout', decidedAt: '', delivered: 0 })).toBe('Expired')
    expect(classificationLine({ reads: 'CONFIDENTIAL', sink: 'PUBLIC', taint: 'CONFIDENTIAL' })).toBe(
      'reads CONFIDENTIAL → writes to PUBLIC · session taint CONFIDENTIAL'
    )
    expect(classificationLine(null)).toBeUndefined()
  })

  it('drops only the agent’s own name from the front of a summary', () => {
    expect(summaryText({ agentId: 'coder', summary: 'coder: rm -rf build' })).toBe('rm -rf build')
    expect(summaryText({ agentId: 'coder', summary: 'other: rm -rf build' })).toBe('other: rm -rf build')
    expect(summaryText({ agentId: null, summary: 'resource: docker' })).toBe('resource: docker')
    expect(summaryText({ agentId: 'coder', summary: 'coder: ' })).toBe('coder: ')
  })

  it('names a write-down only when both sides are known, and a taint above PUBLIC', () => {
    expect(writeDownOf({ reads: 'CONFIDENTIAL', sink: 'PUBLIC' })).toBe('CONFIDENTIAL → PUBLIC')
    expect(writeDownOf({ taint: 'PUBLIC' })).toBeUndefined()
    expect(taintOf({ taint: 'PUBLIC' })).toBeUndefined()
    expect(taintOf({ taint: 'INTERNAL' })).toBe('INTERNAL')
  })
})
