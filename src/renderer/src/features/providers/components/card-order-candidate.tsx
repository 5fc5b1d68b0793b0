import { useSortable } from '@dnd-kit/sortable'
import { CSS } from '@dnd-kit/utilities'
import { ArrowDown, ArrowUp, GripVertical, Settings2, X } from 'lucide-react'
import { useState } from 'react'
import { Badge, IconButton } from '../../../ui'
import type { OrderRow } from '../lib/order-rows'
import { isolationWords, shownAxisCount } from '../lib/probe-facts'
import { FormCandidateConfig } from './form-candidate-config'

/** Props of one order entry: its row, its neighbours' count and the actions the list wires to the store. */
export type CardOrderCandidateProps = {
  row: OrderRow
  count: number
  busy: boolean
  onMove(from: number, to: number): void
  onRemove(index: number): void
}

/**
 * One code-execution candidate in the order: a drag handle (pointer, or keyboard: Space, arrows,
 * Space), move buttons, what its probe says here, and its config (edited inline).
 */
export function CardOrderCandidate({ row, count, busy, onMove, onRemove }: CardOrderCandidateProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: row.sortId, disabled: busy })
  const [editing, setEditing] = useState(false)
  const style = { transform: CSS.Transform.toString(transform), transition }
  const id = row.sortId
  return (
    <li ref={setNodeRef} style={style} className={`prv-candidate${isDragging ? ' prv-candidate-dragging' : ''}`} data-testid={`provider-order-item-${id}`}>
      <div className="prv-candidate-row">
        <button
          type="button"
          ref={setActivatorNodeRef}
          className="prv-handle"
          data-testid={`provider-handle-${id}`}
          aria-label={`Reorder ${row.providerId}, position ${row.index + 1} of ${count}`}
          {...attributes}
          {...listeners}
        >
          <GripVertical size={16} aria-hidden="true" />
        </button>
        <span className="prv-position" aria-hidden="true">
          {row.index + 1}
        </span>
        <div className="prv-candidate-main">
          <div className="prv-candidate-title">
            <code className="prv-candidate-id">{row.providerId}</code>
            <Badge tone={row.verdict.tone} testId={`provider-order-status-${id}`}>
              {row.verdict.label}
            </Badge>
            {row.isolation && (
              <Badge
                tone={row.claimedAxes === shownAxisCount ? 'ok' : row.claimedAxes === 0 ? 'bad' : 'warn'}
                title="Claimed by the provider's probe; the doctor's verification is in the probe results below"
              >
                {row.claimedAxes}/{shownAxisCount} axes claimed
              </Badge>
            )}
          </div>
          <div className="prv-candidate-sub">
            {!row.registered
              ? 'No provider with this id is registered in this build; selection skips it.'
              : [
                  row.isolation && isolationWords(row.isolation),
                  row.probe && !row.probe.available && row.probe.reason,
                  row.config ? `config ${JSON.stringify(row.config)}` : 'default config'
                ]
                  .filter(Boolean)
                  .join(' · ')}
          </div>
        </div>
        <div className="prv-candidate-actions">
          <IconButton
            label={`Move ${row.providerId} up`}
            icon={<ArrowUp size={15} aria-hidden="true" />}
            data-testid={`provider-move-up-${id}`}
            disabled={busy || row.index === 0}
            onClick={() => onMove(row.index, row.index - 1)}
          />
          <IconButton
            label={`Move ${row.providerId} down`}
            icon={<ArrowDown size={15} aria-hidden="true" />}
            data-testid={`provider-move-down-${id}`}
            disabled={busy || row.index === count - 1}
            onClick={() => onMove(row.index, row.index + 1)}
          />
          <IconButton
            label={editing ? `Close ${row.providerId} config` : `Edit ${row.providerId} config`}
            icon={<Settings2 size={15} aria-hidden="true" />}
            data-testid={`provider-config-${id}`}
            aria-expanded={editing}
            className={editing ? 'prv-icon-active' : undefined}
            onClick={() => setEditing(!editing)}
          />
          <IconButton
            label={count <= 1 ? 'The order needs at least one provider' : `Remove ${row.providerId} from the order`}
            icon={<X size={15} aria-hidden="true" />}
            data-testid={`provider-remove-${id}`}
            disabled={busy || count <= 1}
            onClick={() => onRemove(row.index)}
          />
        </div>
      </div>
      {editing && <FormCandidateConfig row={row} onDone={() => setEditing(false)} />}
    </li>
  )
}
