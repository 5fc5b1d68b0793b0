import { Inbox } from 'lucide-react'
import { useShallow } from 'zustand/react/shallow'
import { EmptyState, ErrorBanner, Kbd, Loading } from '../../../ui'
import { useApprovalsStore } from '../store/approvals-store'
import { PaneApprovalDetail, type DetailActions } from './pane-approval-detail'
import { ListApprovals } from './list-approvals'
import { StatusLastDecision } from './status-last-decision'

/**
 * The Queue tab: the status of the last decision, the list, and the selected request. The empty
 * state appears only once the host answered with an empty queue.
 */
export function PaneQueue(props: { actions: DetailActions; notice?: string }) {
  const { items, status, error, selectedId, settled, settledError, decidingId, decideError } = useApprovalsStore(
    useShallow((state) => ({
      items: state.items,
      status: state.queueStatus,
      error: state.queueError,
      selectedId: state.selectedId,
      settled: state.settled,
      settledError: state.settledError,
      decidingId: state.decidingId,
      decideError: state.decideError
    }))
  )
  const select = useApprovalsStore((state) => state.select)
  const refresh = useApprovalsStore((state) => state.refreshQueue)
  const dismissError = useApprovalsStore((state) => state.dismissDecideError)

  if (status === 'idle' || status === 'loading') return <Loading label="Reading the queue…" testId="approvals-loading" />
  if (status === 'error') return <ErrorBanner message={error ?? 'The queue could not be read.'} onRetry={() => void refresh()} />

  const selected = items.find((item) => item.id === selectedId) ?? (settled?.id === selectedId ? settled : undefined)
  if (items.length === 0 && !selected && !settledError) {
    return (
      <>
        <StatusLastDecision />
        <EmptyState title="Nothing is waiting for you" testId="approvals-empty" icon={<Inbox size={22} />}>
          <p>
            When an agent asks for something its policy leaves to a person — a risky command, a file write with <code>ask: always</code>, a network call, a
            skill to persist — it appears here at once, with its command or diff, risk flags and the rule that asked.
          </p>
          <p>
            Triage with the keyboard: <Kbd>j</Kbd> <Kbd>k</Kbd> to move, <Kbd>a</Kbd> approve, <Kbd>s</Kbd> for the session, <Kbd>r</Kbd> as a rule,{' '}
            <Kbd>d</Kbd> deny. Undecided requests are denied when they expire.
          </p>
        </EmptyState>
      </>
    )
  }
  return (
    <>
      {error && <ErrorBanner message={error} onRetry={() => void refresh()} />}
      <StatusLastDecision />
      <div className="appr-queue">
        <ListApprovals items={items} selectedId={selectedId} onSelect={(id) => void select(id)} actions={props.actions} />
        {selected ? (
          <PaneApprovalDetail
            item={selected}
            deciding={decidingId === selected.id}
            error={decideError?.id === selected.id ? decideError.message : undefined}
            notice={props.notice}
            onDismissError={dismissError}
            actions={props.actions}
          />
        ) : (
          <section className="appr-detail" data-testid="approval-detail" aria-label="Selected request">
            <div className="appr-detail-head">
              {settledError ? (
                <ErrorBanner message={settledError} />
              ) : (
                <p className="appr-notice">
                  Select a request on the left (or press <Kbd>j</Kbd>).
                </p>
              )}
            </div>
          </section>
        )}
      </div>
    </>
  )
}
