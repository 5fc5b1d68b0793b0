import type { ApprovalView } from '@shared/approvals'
import { useEffect, useState } from 'react'
import { Button, Dialog, Field, TextAgent } from '../../../ui'
import { summaryText } from '../lib/queue'

/**
 * Deny with a reason (SPEC §7): the reason is required and is what the agent's call receives.
 * Enter denies, Shift+Enter starts a new line; the host's refusal (already decided) shows here.
 */
export function DialogDeny(props: { open: boolean; item?: ApprovalView; onOpenChange(open: boolean): void; onDeny(reason: string): Promise<string | undefined> }) {
  const [reason, setReason] = useState('')
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    if (props.open) {
      setReason('')
      setError(undefined)
    }
  }, [props.open, props.item?.id])
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
      title="Deny this request"
      description="The agent’s call fails with your reason; nothing runs."
      testId="dialog-approval-deny"
    >
      <form
        className="appr-dialog-form"
        onSubmit={(event) => {
          event.preventDefault()
          void submit()
        }}
      >
        {props.item && (
          <div className="appr-target" aria-label="The request">
            {props.item.agentId ?? 'no agent'} · <TextAgent text={props.item.tool} /> · <TextAgent text={summaryText(props.item)} />
          </div>
        )}
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
            Deny request
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
