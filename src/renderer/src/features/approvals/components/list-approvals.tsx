import type { ApprovalView } from '@shared/approvals'
import { useEffect, useRef } from 'react'
import { visibleText } from '@shared/visible-text'
import { Badge, Button, Kbd, TextAgent, ageOf, useNow } from '../../../ui'
import { useApprovalsStore } from '../store/approvals-store'
import type { DetailActions } from './pane-approval-detail'
import { classificationLine, summaryText, writeDownOf } from '../lib/queue'
import { BadgesRisk } from './badges-risk'
import { BadgeVerdict, riskiestPlanted } from './list-planted'

/**
 * The pending requests across agents, newest first: who asks, which tool, what, since when, its
 * risk flags, a write-down, what a file write would run later, and how many identical requests it
 * stands for. One tab stop (the selected row); the selection follows j/k and the focus follows the
 * selection inside the list. Requests are picked for a bulk decision with `x` (`X`: all of one
 * agent), a ctrl/cmd-click or a shift-click (a range), or their checkbox; a bar then decides them all.
 */
export function ListApprovals(props: { items: ApprovalView[]; selectedId?: string; onSelect(id: string): void; actions: DetailActions }) {
  const checked = useApprovalsStore((state) => state.checked)
  const toggle = useApprovalsStore((state) => state.toggleChecked)
  const clear = useApprovalsStore((state) => state.clearChecked)
  const deciding = useApprovalsStore((state) => state.decidingId !== undefined)
  const now = useNow(1000)
  const listRef = useRef<HTMLOListElement>(null)
  const tabStop = props.items.some((item) => item.id === props.selectedId) ? props.selectedId : props.items[0]?.id
  const waiting = props.items.reduce((sum, item) => sum + item.waiting, 0)

  useEffect(() => {
    const list = listRef.current
    const row = list?.querySelector<HTMLButtonElement>(`[data-id="${CSS.escape(props.selectedId ?? '')}"]`)
    if (!list || !row) return
    row.scrollIntoView({ block: 'nearest' })
    if (list.contains(document.activeElement) && document.activeElement !== row) row.focus({ preventScroll: true })
  }, [props.selectedId])

  return (
    <div className="appr-list-pane" data-testid="approval-list">
      <div className="appr-list-head">
        <span>
          <strong>{props.items.length}</strong> pending · newest first
        </span>
        <span title="Agent calls blocked on these requests right now">
          {waiting} {waiting === 1 ? 'call' : 'calls'} waiting
        </span>
      </div>
      {checked.length > 0 && (
        <div className="appr-bulk" role="group" aria-label="Bulk decision" data-testid="approval-bulk">
          <span title="a approves them all once, d denies them all, Esc clears">
            <strong data-testid="approval-bulk-count">{checked.length}</strong> picked
          </span>
          <Button size="sm" variant="primary" onClick={props.actions.approvePicked} busy={deciding} data-testid="approval-bulk-approve" aria-keyshortcuts="a">
            Approve {checked.length}
          </Button>
          <Button size="sm" variant="danger" onClick={props.actions.denyPicked} disabled={deciding} data-testid="approval-bulk-deny" aria-keyshortcuts="d">
            Deny {checked.length}…
          </Button>
          <Button size="sm" variant="ghost" onClick={clear} data-testid="approval-bulk-clear" aria-keyshortcuts="Escape">
            Clear
          </Button>
        </div>
      )}
      {props.items.length === 0 ? (
        <p className="appr-list-empty" data-testid="approvals-empty">
          Nothing is waiting. New requests appear here the moment an agent’s policy asks.
        </p>
      ) : (
        <ol className="appr-list" ref={listRef} aria-label="Pending requests">
          {props.items.map((item) => (
            <li key={item.id} className={`appr-list-entry${checked.includes(item.id) ? ' is-picked' : ''}`}>
              <input
                type="checkbox"
                className="appr-pick"
                tabIndex={-1}
                checked={checked.includes(item.id)}
                aria-label={`Pick the request from ${item.agentId ?? 'no agent'} for a bulk decision`}
                data-testid={`approval-pick-${item.id}`}
                onChange={(event) => toggle(item.id, (event.nativeEvent as MouseEvent).shiftKey)}
              />
              <RowApproval
                item={item}
                now={now}
                selected={item.id === props.selectedId}
                tabbable={item.id === tabStop}
                onSelect={props.onSelect}
                onPick={(range) => toggle(item.id, range)}
              />
            </li>
          ))}
        </ol>
      )}
      <div className="appr-list-foot" aria-hidden="true">
        <span>
          <Kbd>j</Kbd>
          <Kbd>k</Kbd> move
        </span>
        <span>
          <Kbd>a</Kbd> approve
        </span>
        <span>
          <Kbd>s</Kbd> session
        </span>
        <span>
          <Kbd>r</Kbd> rule…
        </span>
        <span>
          <Kbd>d</Kbd> deny…
        </span>
        <span>
          <Kbd>x</Kbd> pick
        </span>
        <span>
          <Kbd>?</Kbd> keys
        </span>
      </div>
    </div>
  )
}

function RowApproval(props: {
  item: ApprovalView
  now: number
  selected: boolean
  tabbable: boolean
  onSelect(id: string): void
  onPick(range: boolean): void
}) {
  const { item } = props
  const flow = writeDownOf(item.classification)
  const planted = riskiestPlanted(item.planted)
  return (
    <button
      type="button"
      className="appr-item"
      data-id={item.id}
      data-testid={`approval-item-${item.id}`}
      aria-current={props.selected ? 'true' : undefined}
      tabIndex={props.tabbable ? 0 : -1}
      onClick={(event) => {
        // Ctrl/Cmd-click picks one request for a bulk decision, shift-click a range; a plain click selects.
        if (event.shiftKey || event.ctrlKey || event.metaKey) return props.onPick(event.shiftKey)
        props.onSelect(item.id)
      }}
    >
      <span className="appr-item-top">
        <span className="appr-item-agent">{item.agentId ?? 'no agent'}</span>
        <span className="appr-item-tool">
          <TextAgent text={item.tool} />
        </span>
        <time className="appr-item-age" dateTime={item.createdAt} title={`asked ${new Date(item.createdAt).toLocaleString()}`}>
          {ageOf(item.createdAt, props.now)}
        </time>
      </span>
      <span className="appr-item-summary" title={visibleText(item.summary)}>
        <TextAgent text={summaryText(item)} />
      </span>
      {planted && (
        <span className="appr-item-planted" data-testid={`approval-planted-${item.id}`} title={`${planted.where}: ${visibleText(planted.line)}`}>
          <span className="appr-item-planted-key">runs later</span>
          <code>
            <TextAgent text={planted.line} />
          </code>
          <BadgeVerdict entry={planted} />
          <BadgesRisk flags={planted.riskFlags} />
          {item.planted.length > 1 && <span className="appr-muted">+{item.planted.length - 1} more</span>}
        </span>
      )}
      {(item.riskFlags.length > 0 || item.count > 1 || flow || item.waiting === 0 || item.kind !== 'action') && (
        <span className="appr-item-meta">
          {item.count > 1 && (
            <Badge tone="info" title={`${item.count} identical requests batched into this one`}>
              <span className="appr-count">×{item.count}</span>
            </Badge>
          )}
          {item.kind !== 'action' && <Badge tone="info">{item.kind.replace('_', '-')}</Badge>}
          <BadgesRisk flags={item.riskFlags} />
          {flow && (
            <Badge tone="bad" title={classificationLine(item.classification)}>
              {flow}
            </Badge>
          )}
          {item.waiting === 0 && (
            <Badge tone="neutral" title="No agent call waits for this any more; deciding records it as expired">
              nobody waiting
            </Badge>
          )}
        </span>
      )}
    </button>
  )
}
