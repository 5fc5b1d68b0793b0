import { pathKey, type CheckpointChange, type EntryState, type IndexedEntry } from '../../store'
import type { ApplyStep } from './checkpoint-apply'
import { shownPath } from './checkpoint-diff'
import { CheckpointError } from './checkpoint-error'

/**
 * What an operator's undo changes, planned from a checkpoint's changes and the workspace's index
 * (freshly walked): pure, so every refusal is decided before anything is written.
 */

/** The steps that revert one checkpoint; refused, naming the files, when one changed again since. */
export function revertSteps(changes: readonly CheckpointChange[], index: ReadonlyMap<string, IndexedEntry>): ApplyStep[] {
  const conflicts = changes.filter((change) => !sameAs(index.get(pathKey(change.path)), change.after)).map((change) => shownPath(change.path))
  if (conflicts.length > 0) {
    throw new CheckpointError(
      'checkpoint.conflict',
      `Not reverted: ${listed(conflicts)} changed again after this call. Restore the workspace to before a later call, or revert the later calls first.`,
      { files: conflicts }
    )
  }
  return changes.map((change) => ({ path: change.path, to: change.before }))
}

/** The steps that bring every entry changed from a checkpoint on (`changes`, oldest first) back to its state before the first of them. */
export function restoreSteps(changes: readonly CheckpointChange[], index: ReadonlyMap<string, IndexedEntry>): ApplyStep[] {
  const first = new Map<string, ApplyStep>()
  for (const change of changes) {
    const key = pathKey(change.path)
    if (!first.has(key)) first.set(key, { path: change.path, to: change.before })
  }
  return [...first.values()].filter((step) => !sameAs(index.get(pathKey(step.path)), step.to))
}

/**
 * Refuses an undo that could not be whole or could not itself be undone: a state to bring back
 * whose content was not kept, or a current entry it would replace whose content is not kept.
 */
export function assertUndoable(steps: readonly ApplyStep[], index: ReadonlyMap<string, IndexedEntry>, kind: 'revert' | 'restore'): void {
  const verbed = kind === 'revert' ? 'reverted' : 'restored'
  const unkept = steps.filter((step) => step.to !== null && step.to.kind !== 'dir' && !step.to.kept).map((step) => shownPath(step.path))
  if (unkept.length > 0) {
    throw new CheckpointError(
      'checkpoint.not_kept',
      `Not ${verbed}: the content of ${listed(unkept)} was not kept (over checkpoints.max_file_mb, changing while recorded, or not a file, folder or link).`,
      { files: unkept }
    )
  }
  const lost = steps
    .filter((step) => {
      const now = index.get(pathKey(step.path))
      return now !== undefined && now.kind !== 'dir' && !now.kept
    })
    .map((step) => shownPath(step.path))
  if (lost.length > 0) {
    throw new CheckpointError(
      'checkpoint.not_kept',
      `Not ${verbed}: ${listed(lost)} would be replaced or removed, and its current content is not kept (over checkpoints.max_file_mb, changing, or not a file, folder or link), so that could not be undone.`,
      { files: lost }
    )
  }
}

/** Whether an indexed entry is in a recorded state (both absent counts). */
function sameAs(entry: IndexedEntry | undefined, state: EntryState | null): boolean {
  if (!entry || !state) return !entry && !state
  if (entry.kind !== state.kind) return false
  if (entry.kind === 'dir') return true
  return entry.hash === state.hash && entry.mode === state.mode
}

/** Files named in a refusal: the first five, then how many more. */
export const listed = (files: readonly string[]) => (files.length <= 5 ? files.join(', ') : `${files.slice(0, 5).join(', ')} and ${files.length - 5} more`)
