import type { FileDiffView } from '@shared/ipc'
import { visibleText } from '@shared/visible-text'
import { FileMinus, FilePlus, FileDiff, Folder, Link2, RotateCcw, History } from 'lucide-react'
import { useEffect, useState } from 'react'
import { Badge, Button, ConfirmDialog, DiffView, ErrorBanner, Loading, TextAgent } from '../../../ui'
import { useCheckpointsStore } from '../store/checkpoints-store'
import '../checkpoints.css'

const changeTone = { added: 'ok', modified: 'info', deleted: 'bad', mode: 'neutral', type: 'warn' } as const

/**
 * What one call changed in its agent's workspace, from its checkpoint: each entry added, modified
 * or deleted, with a diff of its text (a deletion shows what was lost), or why there is none
 * (binary, too large, not kept). The operator can revert the call (only its changes; a file
 * changed again since is refused, named) or restore the workspace to before it. Nothing renders
 * for a call that changed no file.
 */
export function PaneCheckpointChanges(props: { callId: string; running?: boolean; heading?: 'section' | 'none' }) {
  const loaded = useCheckpointsStore((state) => state.changes[props.callId])
  const load = useCheckpointsStore((state) => state.load)
  const undo = useCheckpointsStore((state) => state.undo)
  const undoCall = useCheckpointsStore((state) => state.undoCall)
  const clearUndo = useCheckpointsStore((state) => state.clearUndo)
  const [confirm, setConfirm] = useState<'revert' | 'restore' | undefined>()
  useEffect(() => {
    if (!props.running) void load(props.callId)
  }, [props.callId, props.running, load])
  if (props.running) return null
  if (!loaded || (loaded.status === 'loading' && !loaded.value)) return <Loading label="Reading what the call changed…" />
  if (loaded.status === 'error' && !loaded.value)
    return <ErrorBanner message={loaded.error ?? 'The changes could not be read.'} onRetry={() => void load(props.callId)} />
  const detail = loaded.value
  if (!detail) return null
  const { checkpoint, files, more } = detail
  const mine = undo?.id === props.callId ? undo : undefined
  const pruned = checkpoint.prunedAt !== null
  return (
    <section className="cp-changes" data-testid="checkpoint-changes" aria-label="Files changed">
      <header className="cp-head">
        {props.heading !== 'none' && <h3>Files changed</h3>}
        <span className="cp-count">
          {checkpoint.files} {checkpoint.files === 1 ? 'entry' : 'entries'}
          {checkpoint.kind !== 'call' && <> · {checkpoint.kind === 'outside' ? 'changed between calls' : `the operator's ${checkpoint.kind}`}</>}
        </span>
        <div className="cp-actions">
          <Button
            variant="secondary"
            size="sm"
            disabled={pruned || mine?.status === 'working'}
            onClick={() => setConfirm('revert')}
            data-testid="checkpoint-revert"
            icon={<RotateCcw size={14} aria-hidden="true" />}
            busy={mine?.status === 'working' && mine.kind === 'revert'}
          >
            Revert this call
          </Button>
          <Button
            variant="ghost"
            size="sm"
            disabled={pruned || mine?.status === 'working'}
            onClick={() => setConfirm('restore')}
            data-testid="checkpoint-restore"
            icon={<History size={14} aria-hidden="true" />}
            busy={mine?.status === 'working' && mine.kind === 'restore'}
          >
            Restore to before
          </Button>
        </div>
      </header>
      {pruned && (
        <p className="cp-note" role="note">
          This checkpoint was pruned ({checkpoint.prunedAt}): what changed is no longer kept, so it cannot be undone.
        </p>
      )}
      {checkpoint.note && <p className="cp-note">{checkpoint.note}</p>}
      {mine && mine.status !== 'working' && (
        <div className={`cp-undo cp-undo-${mine.status}`} role={mine.status === 'error' ? 'alert' : 'status'} data-testid="checkpoint-undo-result">
          <span>{mine.message}</span>
          <Button variant="ghost" size="sm" onClick={clearUndo}>
            Dismiss
          </Button>
        </div>
      )}
      <ul className="cp-files">
        {files.map((file) => (
          <li key={file.path}>
            <ItemFileChange file={file} />
          </li>
        ))}
      </ul>
      {more > 0 && (
        <p className="cp-note">
          …and {more} more (the CLI shows them all: airlock checkpoints diff {props.callId}).
        </p>
      )}
      <ConfirmDialog
        open={confirm !== undefined}
        onOpenChange={(open) => {
          if (!open) setConfirm(undefined)
        }}
        title={confirm === 'restore' ? 'Restore the workspace to before this call?' : 'Revert this call?'}
        confirmLabel={confirm === 'restore' ? 'Restore' : 'Revert'}
        danger
        onConfirm={() => {
          const kind = confirm ?? 'revert'
          setConfirm(undefined)
          void undoCall(props.callId, kind)
        }}
        testId="checkpoint-confirm"
      >
        {confirm === 'restore'
          ? 'Every file this call and every later call changed goes back to how it was before this call. Changes made since are lost from the workspace, but kept in a new checkpoint, so this can be undone too.'
          : `The ${checkpoint.files} ${checkpoint.files === 1 ? 'entry' : 'entries'} this call changed go back to how they were before it. If one was changed again since, nothing is reverted and the file is named.`}
      </ConfirmDialog>
    </section>
  )
}

function ItemFileChange(props: { file: FileDiffView }) {
  const { file } = props
  const kind = file.after?.kind ?? file.before?.kind
  const Icon = kind === 'dir' ? Folder : kind === 'link' ? Link2 : file.change === 'added' ? FilePlus : file.change === 'deleted' ? FileMinus : FileDiff
  return (
    <div className="cp-file" data-testid={`checkpoint-file-${visibleText(file.path)}`}>
      <div className="cp-file-head">
        <Icon size={14} aria-hidden="true" />
        <code className="cp-path">
          <TextAgent text={file.path} />
        </code>
        <Badge tone={changeTone[file.change]}>{file.change}</Badge>
      </div>
      {/* A folder's badge says it all, unless its mode changed. */}
      {file.diff ? <DiffView text={file.diff} /> : file.note && (kind !== 'dir' || file.change === 'mode') && <p className="cp-file-note">{file.note}</p>}
    </div>
  )
}
