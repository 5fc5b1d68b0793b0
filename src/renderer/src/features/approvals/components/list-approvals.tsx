import type { ApprovalView } from '@shared/approvals'
import { useEffect, useRef } from 'react'
import { visibleText } from '@shared/visible-text'
import { Badge, Kbd, TextAgent, ageOf, useNow } from '../../../ui'
import { classificationLine, summaryText, writeDownOf } from '../lib/queue'
import { BadgesRisk } from './badges-risk'

/**
 * The pending requests across agents, newest first: who asks, which tool, what, since when, its
 * risk flags, a write-down, and how many identical requests it stands for. One tab stop (the
 * selected row); the selection follows j/k and the focus follows the selection inside the list.
 */
export function ListApprovals(props: { items: ApprovalView[]; selectedId?: string; onSelect(id: string): void }) {
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
        <span title="Agent calls blocked on these requests right now">{waiting} {waiting === 1 ? 'call' : 'calls'} waiting</span>
      </div>
      {props.items.length === 0 ? (
        <p className="appr-list-empty" data-testid="approvals-empty">
          Nothing is waiting. New requests appear here the moment an agent’s policy asks.
        </p>
      ) : (
        <ol className="appr-list" ref={listRef} aria-label="Pending requests">
          {props.items.map((item) => (
            <li key={item.id}>
              <RowApproval item={item} now={now} selected={item.id === props.selectedId} tabbable={item.id === tabStop} onSelect={props.onSelect} />
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
          <Kbd>?</Kbd> keys
        </span>
      </div>
    </div>
  )
}

function RowApproval(props: { item: ApprovalView; now: number; selected: boolean; tabbable: boolean; onSelect(id: string): void }) {
  const { item } = props
  const flow = writeDownOf(item.classification)
  return (
    <button
      type="button"
      className="appr-item"
      data-id={item.id}
      data-testid={`approval-item-${item.id}`}
      aria-current={props.selected ? 'true' : undefined}
      tabIndex={props.tabbable ? 0 : -1}
      onClick={() => props.onSelect(item.id)}
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
