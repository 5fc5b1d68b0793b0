import type { ApprovalView } from '@shared/approvals'
import { Eye } from 'lucide-react'
import { useEffect, useState } from 'react'
import { Button, ErrorBanner, TextAgent } from '../../../ui'
import { useApprovalsStore } from '../store/approvals-store'

/** The marker redaction leaves in place of a value (`API_KEY=[redacted]`). */
const redactedMarker = '[redacted]'

/** Whether an item's text shows a redacted value (what the operator may reveal). */
export function showsRedacted(item: Pick<ApprovalView, 'summary' | 'preview' | 'commands'>): boolean {
  return [item.summary, item.preview ?? '', ...item.commands.flat()].some((text) => text.includes(redactedMarker))
}

/**
 * What redaction hid in a request, revealed to the operator deciding it: one click, recorded in
 * the audit log (`approval.revealed`), refused by the host once the request is decided. The values
 * are shown here only, never kept in the console's state beyond this pane.
 */
export function PaneReveal({ item }: { item: ApprovalView }) {
  const [revealed, setRevealed] = useState<{ id: string; text?: string; error?: string }>()
  const [busy, setBusy] = useState(false)
  const revealInput = useApprovalsStore((state) => state.revealInput)
  useEffect(() => setRevealed(undefined), [item.id])
  if (!showsRedacted(item) || item.status !== 'pending') return null
  const mine = revealed?.id === item.id ? revealed : undefined
  return (
    <div className="appr-reveal" data-testid="approval-reveal">
      {!mine?.text && (
        <Button
          size="sm"
          variant="ghost"
          icon={<Eye size={14} aria-hidden="true" />}
          busy={busy}
          data-testid="approval-reveal-button"
          title="Show the values Airlock redacted in this request (the agent's secrets): recorded in the audit log"
          onClick={async () => {
            setBusy(true)
            const answer = await revealInput(item.id)
            setBusy(false)
            setRevealed(answer.ok ? { id: item.id, text: JSON.stringify(answer.value.input, null, 2) } : { id: item.id, error: answer.error.message })
          }}
        >
          Reveal redacted values
        </Button>
      )}
      {mine?.error && <ErrorBanner message={mine.error} testId="approval-reveal-error" />}
      {mine?.text && (
        <>
          <p className="appr-muted">The request’s input as the agent sent it. Revealing it was recorded in the audit log.</p>
          <pre className="appr-reveal-input" data-testid="approval-revealed">
            <TextAgent text={mine.text} multiline />
          </pre>
        </>
      )}
    </div>
  )
}
