import { closestCenter, DndContext, KeyboardSensor, PointerSensor, useSensor, useSensors, type Announcements, type DragEndEvent } from '@dnd-kit/core'
import { SortableContext, sortableKeyboardCoordinates, verticalListSortingStrategy } from '@dnd-kit/sortable'
import { Plus, ShieldCheck } from 'lucide-react'
import { useMemo, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Button, ErrorBanner, Loading } from '../../../ui'
import { addableProviders, presetOrder, strongestFirst } from '../lib/candidates'
import { orderRows, type OrderRow } from '../lib/order-rows'
import { useProvidersStore } from '../store/providers-store'
import { CardOrderCandidate } from './card-order-candidate'

/** Screen-reader words for drag and drop, naming providers and positions instead of ids. */
function announcements(rows: OrderRow[]): Announcements {
  const name = (id: string | number) => rows.find((row) => row.sortId === id)?.providerId ?? String(id)
  const position = (id: string | number | undefined) => rows.findIndex((row) => row.sortId === id) + 1
  return {
    onDragStart: ({ active }) => `Picked up ${name(active.id)} at position ${position(active.id)} of ${rows.length}.`,
    onDragOver: ({ active, over }) => (over ? `${name(active.id)} is over position ${position(over.id)}.` : `${name(active.id)} is outside the list.`),
    onDragEnd: ({ active, over }) =>
      over ? `${name(active.id)} dropped at position ${position(over.id)}; the order is saved.` : `${name(active.id)} dropped where it was.`,
    onDragCancel: ({ active }) => `Reordering cancelled; ${name(active.id)} is back at position ${position(active.id)}.`
  }
}

/**
 * The ordered code-execution candidates: drag by the handle (pointer or keyboard) or use the move
 * buttons; each change is saved to `code_execution.providers` at once, config kept.
 */
export function ListProviderOrder() {
  const { candidates, providers, probed, orderStatus, orderError, orderSaving } = useProvidersStore(
    useShallow((state) => ({
      candidates: state.candidates,
      providers: state.providers,
      probed: state.probeStatus === 'ready',
      orderStatus: state.orderStatus,
      orderError: state.orderError,
      orderSaving: state.orderSaving
    }))
  )
  const { move, remove, add, applyPreset, loadOrder, dismissOrderError } = useProvidersStore(
    useShallow((state) => ({
      move: state.move,
      remove: state.remove,
      add: state.add,
      applyPreset: state.applyPreset,
      loadOrder: state.loadOrder,
      dismissOrderError: state.dismissOrderError
    }))
  )
  const rows = useMemo(() => orderRows(candidates, providers, probed), [candidates, providers, probed])
  const addable = useMemo(() => addableProviders(providers, candidates), [providers, candidates])
  const presetApplied = useMemo(
    () => presetOrder(candidates, strongestFirst).every((candidate, index) => candidates[index]?.providerId === candidate.providerId),
    [candidates]
  )
  const [toAdd, setToAdd] = useState('')
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates })
  )
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return
    const from = rows.findIndex((row) => row.sortId === active.id)
    const to = rows.findIndex((row) => row.sortId === over.id)
    if (from >= 0 && to >= 0) void move(from, to)
  }

  if (orderStatus === 'idle' || orderStatus === 'loading') return <Loading label="Reading the code-execution order…" />
  if (orderStatus === 'error' && candidates.length === 0) {
    return <ErrorBanner message={`Could not read code_execution.providers: ${orderError}`} onRetry={() => void loadOrder()} />
  }
  return (
    <div className="prv-order">
      {orderError && <ErrorBanner message={`The order was not saved: ${orderError}`} onDismiss={dismissOrderError} testId="provider-order-error" />}
      <div className="prv-preset">
        <Button
          size="sm"
          icon={<ShieldCheck size={14} />}
          disabled={orderSaving || presetApplied}
          onClick={() => void applyPreset(strongestFirst)}
          data-testid="provider-preset-strongest"
        >
          Strongest first
        </Button>
        <span className="prv-preset-note">
          {presetApplied ? 'The order starts with the strongest isolation: ' : 'One click puts '}
          {strongestFirst.join(', ')}
          {presetApplied ? '.' : ' first (a separate kernel, then a container, then a namespace sandbox); the rest keep their order after them.'}
        </span>
      </div>
      <DndContext
        sensors={sensors}
        collisionDetection={closestCenter}
        onDragEnd={onDragEnd}
        accessibility={{
          announcements: announcements(rows),
          screenReaderInstructions: {
            draggable: 'To reorder, press Space, move with the up and down arrow keys, then press Space again to drop or Escape to cancel.'
          }
        }}
      >
        <SortableContext items={rows.map((row) => row.sortId)} strategy={verticalListSortingStrategy}>
          <ol className="prv-candidates" data-testid="provider-order" aria-label="Code-execution providers, in the order tried">
            {rows.map((row) => (
              <CardOrderCandidate
                key={row.sortId}
                row={row}
                count={rows.length}
                busy={orderSaving}
                onMove={(from, to) => void move(from, to)}
                onRemove={(index) => void remove(index)}
              />
            ))}
          </ol>
        </SortableContext>
      </DndContext>
      {addable.length > 0 && (
        <form
          className="prv-add"
          onSubmit={(event) => {
            event.preventDefault()
            if (toAdd) void add(toAdd).then((saved) => saved && setToAdd(''))
          }}
        >
          <label className="prv-add-label" htmlFor="provider-add-select">
            Add a registered code-execution provider
          </label>
          <select
            id="provider-add-select"
            className="prv-select"
            value={toAdd}
            onChange={(event) => setToAdd(event.target.value)}
            data-testid="provider-add-select"
          >
            <option value="">Choose…</option>
            {addable.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
          <Button type="submit" size="sm" icon={<Plus size={14} />} disabled={!toAdd || orderSaving} data-testid="provider-add">
            Add to the end
          </Button>
        </form>
      )}
    </div>
  )
}
