import type { ApprovalView } from '@shared/approvals'
import { useEffect, useState } from 'react'
import { Button, Dialog, Field, TextAgent } from '../../../ui'
import { summaryText } from '../lib/queue'

/** How many of the requests a bulk denial names in the dialog (the rest are counted). */
const namedTargets = 5

/**
 * Deny with a reason (SPEC §7): the reason is required and is what the agent's call receives —
 * each of them, when several requests are denied at once. Enter denies, Shift+Enter starts a new
 * line; the host's refusal (already decided) shows here.
 */
export function DialogDeny(props: {
  open: boolean
  items: ApprovalView[]
  onOpenChange(open: boolean): void
  onDeny(reason: string): Promise<string | undefined>
}) {
  const count = props.items.length
  const agents = new Set(props.items.map((item) => item.agentId ?? 'no agent'))
  const [reason, setReason] = useState('')
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const firstId = props.items[0]?.id
  useEffect(() => {
    if (props.open) {
      setReason('')
      setError(undefined)
    }
  }, [props.open, firstId])
  const submit = async () => {
    if (reason.trim() === '') return setError('Say why: the agent receives this reason.')
    setBusy(true)
    const refused = await props.onDeny(reason.trim())
    setBusy(false)
    if (refused) setError(refused)
  }
  return (
    <Dialog
      open={props.open}
      onOpenChange={props.onOpenChange}
      title={count > 1 ? `Deny ${count} requests` : 'Deny this request'}
      description={
        count > 1
          ? `From ${agents.size === 1 ? [...agents][0] : `${agents.size} agents`}: each call fails with your reason; nothing runs.`
          : 'The agent’s call fails with your reason; nothing runs.'
      }
      testId="dialog-approval-deny"
    >
      <form
        className="appr-dialog-form"
        onSubmit={(event) => {
          event.preventDefault()
          void submit()
        }}
      >
        <ul className="appr-targets" aria-label={count > 1 ? 'The requests' : 'The request'} data-testid="approval-deny-targets">
          {props.items.slice(0, namedTargets).map((item) => (
            <li key={item.id} className="appr-target">
              {item.agentId ?? 'no agent'} · <TextAgent text={item.tool} /> · <TextAgent text={summaryText(item)} />
            </li>
          ))}
          {count > namedTargets && <li className="appr-muted">and {count - namedTargets} more</li>}
        </ul>
        <Field label="Reason (sent to the agent)" hint="Enter denies · Shift+Enter for a new line" error={error}>
          {(control) => (
            <textarea
              {...control}
              className="appr-input"
              data-testid="approval-deny-reason"
              value={reason}
              maxLength={2000}
              autoFocus
              placeholder="e.g. Not in this workspace — build output stays."
              onChange={(event) => {
                setReason(event.target.value)
                if (error) setError(undefined)
              }}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                  event.preventDefault()
                  void submit()
                }
              }}
            />
          )}
        </Field>
        <div className="dialog-footer">
          <Button onClick={() => props.onOpenChange(false)}>Cancel</Button>
          <Button type="submit" variant="danger" busy={busy} data-testid="approval-deny-confirm">
            {count > 1 ? `Deny ${count} requests` : 'Deny request'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
