import { describe, expect, it } from 'vitest'
import { badgeLabel, titleFor } from './attention'
import { approvalsHash, readApprovalsQuery } from './view-query'

describe('view query and attention', () => {
  it('reads and writes the selected item and tab in the hash', () => {
    expect(readApprovalsQuery('#/approvals?id=abc')).toEqual({ tab: 'queue', id: 'abc' })
    expect(readApprovalsQuery('#/approvals?tab=rules')).toEqual({ tab: 'rules' })
    expect(readApprovalsQuery('#/approvals')).toEqual({ tab: 'queue' })
    expect(approvalsHash({ tab: 'queue', id: 'a b' })).toBe('#/approvals?id=a+b')
    expect(readApprovalsQuery(approvalsHash({ tab: 'queue', id: 'a b' }))).toEqual({ tab: 'queue', id: 'a b' })
    expect(approvalsHash({ tab: 'rules', id: 'x' })).toBe('#/approvals?tab=rules')
  })

  it('titles the window and labels the badge with the pending count', () => {
    expect(titleFor(0)).toBe('Airlock')
    expect(titleFor(3)).toBe('(3) Airlock')
    expect(badgeLabel(0)).toBeUndefined()
    expect(badgeLabel(7)).toBe('7')
    expect(badgeLabel(120)).toBe('99+')
  })
})
