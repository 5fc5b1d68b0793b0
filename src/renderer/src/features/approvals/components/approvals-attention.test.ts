// @vitest-environment jsdom
import type { ApprovalView } from '@shared/approvals'
import { ok } from '@shared/result'
import { act, cleanup, render, screen, waitFor } from '@testing-library/react'
import { createElement, Fragment } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'

// The contract client is the boundary: a stand-in host answers `approvals.list` from a list the
// test changes, and pushes `approvals.changed` as main does. The store and components are real.
const host = vi.hoisted(() => ({ pending: [] as { id: string }[], listeners: [] as (() => void)[] }))

vi.mock('../../../lib/airlock-client', () => ({
  airlock: {
    approvals: {
      list: async () => ok(host.pending),
      get: async ({ id }: { id: string }) => ok({ id, status: 'approved' }),
      onChanged: (listener: () => void) => {
        host.listeners.push(listener)
        return () => undefined
      }
    },
    rules: { onChanged: () => () => undefined }
  }
}))

const { ApprovalsAttention, PendingApprovalsCount } = await import('./approvals-attention')

afterEach(cleanup)

function pendingItem(id: string): ApprovalView {
  return { id, createdAt: new Date().toISOString() } as ApprovalView
}

describe('ApprovalsAttention and PendingApprovalsCount', () => {
  it('title the window and count in the navigation from the host’s queue, live', async () => {
    host.pending = [pendingItem('a'), pendingItem('b')]
    render(createElement(Fragment, null, createElement(ApprovalsAttention), createElement(PendingApprovalsCount)))
    await waitFor(() => expect(document.title).toBe('(2) Airlock'))
    expect(screen.getByTestId('nav-approvals-count').textContent).toBe('2')
    expect(screen.getByTestId('nav-approvals-count').getAttribute('aria-label')).toBe('2 pending approvals')

    host.pending = []
    await act(async () => host.listeners.forEach((listener) => listener()))
    await waitFor(() => expect(document.title).toBe('Airlock'))
    expect(screen.queryByTestId('nav-approvals-count')).toBeNull()
  })
})
