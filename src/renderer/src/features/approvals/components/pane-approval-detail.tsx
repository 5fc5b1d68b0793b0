import { approvalTexts, type ApprovalView } from '@shared/approvals'
import { visibleText } from '@shared/visible-text'
import { Check, ShieldCheck, Timer, X } from 'lucide-react'
import { useMemo, type ReactNode } from 'react'
import { Badge, Button, CopyButton, ErrorBanner, Kbd, NoteHiddenCharacters, TextAgent, TimeAgo, useNow } from '../../../ui'
import {
  classificationLine,
  outcomeTitle,
  rememberBlocker,
  secondsLeft,
  sessionBlocker,
  statusTone,
  summaryText,
  taintOf,
  timeLeft,
  writeDownOf
} from '../lib/queue'
import { shortId } from '../lib/rules'
import { useApprovalsStore } from '../store/approvals-store'
import { ListCommands } from './list-commands'
import { ListPlanted } from './list-planted'
import { PaneReveal } from './pane-reveal'
import { PanePreview } from './pane-preview'
import { BadgesRisk } from './badges-risk'

/** What the detail pane's buttons do; the view also binds them to a, s, r and d. */
export type DetailActions = {
  approve(): void
  session(): void
  rule(): void
  deny(): void
  denyAgent(agentId: string | null): void
  /** The bulk decisions of the requests picked in the list (`x`, shift/ctrl-click). */
  approvePicked(): void
  denyPicked(): void
}

/**
 * The selected request in full: who asks and what (the parsed commands as tokens, the file diff),
 * why (the reason and the policy rule), its risk flags and write-down, the rule it would become,
 * and the decision buttons with their keys. Every text the agent wrote is drawn with `TextAgent`,
 * and a request whose text hides characters says which, above it all. A request that is no longer pending shows its decision
 * instead, read-only.
 */
export function PaneApprovalDetail(props: {
  item: ApprovalView
  deciding: boolean
  error?: string
  notice?: string
  onDismissError(): void
  actions: DetailActions
}) {
  const { item } = props
  const now = useNow(1000)
  const pending = item.status === 'pending'
  const left = secondsLeft(item.expiresAt, now)
  const writeDown = writeDownOf(item.classification)
  const taint = taintOf(item.classification)
  const texts = useMemo(() => approvalTexts(item), [item])
  return (
    <section
      className="appr-detail"
      data-testid="approval-detail"
      aria-label={`Request from ${item.agentId ?? 'no agent'}: ${visibleText(item.tool)}`}
      data-status={item.status}
    >
      <header className="appr-detail-head">
        <div className="appr-detail-titlerow">
          <h2 className="appr-detail-title">
            <span>{item.agentId ?? 'no agent'}</span>
            <code>
              <TextAgent text={item.tool} />
            </code>
          </h2>
          {item.kind !== 'action' && <Badge tone="info">{item.kind.replace('_', '-')} request</Badge>}
          {!pending && <Badge tone={statusTone(item.status)}>{item.status}</Badge>}
          <span className="appr-detail-time">
            asked <TimeAgo iso={item.createdAt} />
            {pending && (
              <>
                {' · '}
                <span
                  className={left < 60 ? 'appr-expiry-soon' : undefined}
                  title={`Denied automatically at ${new Date(item.expiresAt).toLocaleString()} if nobody decides`}
                >
                  <Timer size={12} aria-hidden="true" /> denied in {timeLeft(item.expiresAt, now)}
                </span>
              </>
            )}
          </span>
        </div>
        <pre className="appr-summary" data-testid="approval-summary">
          <TextAgent text={summaryText(item)} multiline />
        </pre>
        <NoteHiddenCharacters
          texts={texts}
          what="This request"
          consequence="What runs is the text with them, whatever it reads as."
          testId="approval-hidden-note"
        />
        <div className="appr-flags">
          {item.riskFlags.length === 0 && <span>no risk flags</span>}
          <BadgesRisk flags={item.riskFlags} />
          {writeDown && (
            <Badge tone="bad" title={classificationLine(item.classification)}>
              write-down {writeDown}
            </Badge>
          )}
          {taint && (
            <Badge tone="neutral" title="The most sensitive data this agent session has read so far">
              session taint {taint}
            </Badge>
          )}
          {item.count > 1 && (
            <Badge tone="info" title="Identical requests of this agent join one item; one decision answers them all">
              ×{item.count} identical requests
            </Badge>
          )}
          {pending && (
            <span>· {item.waiting === 0 ? 'no call is waiting for it any more' : `${item.waiting} ${item.waiting === 1 ? 'call' : 'calls'} waiting`}</span>
          )}
        </div>
        {pending ? <BarActions item={item} deciding={props.deciding} actions={props.actions} /> : <Outcome item={item} />}
        {props.error && <ErrorBanner message={props.error} onDismiss={props.onDismissError} testId="approval-decide-error" />}
        {props.notice && (
          <p className="appr-notice appr-notice-warn" role="status">
            {props.notice}
          </p>
        )}
      </header>
      <div className="appr-detail-body">
        <Section title="Why it asks">
          <dl className="appr-facts">
            <dt>Reason</dt>
            <dd>
              <TextAgent text={item.reason} />
            </dd>
            <dt>Policy rule</dt>
            <dd>
              {item.policyRule ? (
                <code>
                  <TextAgent text={item.policyRule} />
                </code>
              ) : (
                <span className="appr-muted">none named</span>
              )}
            </dd>
            <dt>As a rule</dt>
            <dd>
              {item.proposedRule ? (
                <code>
                  <TextAgent text={item.proposedRule.description} />
                </code>
              ) : (
                <span className="appr-muted">{rememberBlocker(item)}</span>
              )}
            </dd>
          </dl>
        </Section>
        <PaneReveal item={item} />
        {item.commands.length > 0 && (
          <Section title={`Commands · ${item.commands.length}`}>
            <ListCommands commands={item.commands} testId="approval-commands" />
          </Section>
        )}
        {item.planted.length > 0 && (
          <Section title={`Would run later · ${item.planted.length}`}>
            <ListPlanted planted={item.planted} />
          </Section>
        )}
        {item.preview !== null && (
          <Section title={item.tool === 'write_file' || item.tool === 'edit_file' ? 'Change' : 'Preview'}>
            <PanePreview preview={item.preview} />
          </Section>
        )}
        <div className="appr-ids">
          <span>
            approval <code title={item.id}>{shortId(item.id)}</code> <CopyButton text={item.id} label="Copy id" />
          </span>
          {item.sessionId && (
            <span>
              session <code title={item.sessionId}>{shortId(item.sessionId)}</code>
            </span>
          )}
          <span>asked {new Date(item.createdAt).toLocaleString()}</span>
        </div>
      </div>
    </section>
  )
}

function Section(props: { title: string; children: ReactNode }) {
  return (
    <section className="appr-section">
      <h3>{props.title}</h3>
      {props.children}
    </section>
  )
}

function BarActions(props: { item: ApprovalView; deciding: boolean; actions: DetailActions }) {
  const noSession = sessionBlocker(props.item)
  const noRule = rememberBlocker(props.item)
  const fromAgent = useApprovalsStore((state) => state.items.filter((item) => item.agentId === props.item.agentId).length)
  return (
    <div className="appr-actions" role="group" aria-label="Decide">
      <Button
        variant="primary"
        icon={<Check size={15} />}
        onClick={props.actions.approve}
        busy={props.deciding}
        data-testid="approval-approve"
        aria-keyshortcuts="a"
      >
        Approve once <KeyHint k="a" />
      </Button>
      <Button
        onClick={props.actions.session}
        disabled={props.deciding || noSession !== undefined}
        title={noSession ?? 'Approve this and identical requests until the session ends'}
        data-testid="approval-approve-session"
        aria-keyshortcuts="s"
      >
        Approve for session <KeyHint k="s" />
      </Button>
      <Button
        icon={<ShieldCheck size={15} />}
        onClick={props.actions.rule}
        disabled={props.deciding || noRule !== undefined}
        title={noRule ?? 'Choose scope and expiry, then approve and remember'}
        data-testid="approval-approve-rule"
        aria-keyshortcuts="r"
      >
        Approve as rule… <KeyHint k="r" />
      </Button>
      <span className="appr-actions-spacer" />
      {fromAgent > 1 && (
        <Button
          variant="ghost"
          onClick={() => props.actions.denyAgent(props.item.agentId)}
          disabled={props.deciding}
          title={`Deny every pending request of ${props.item.agentId ?? 'no agent'} with one reason (X picks them for a bulk decision instead)`}
          data-testid="approval-deny-agent"
        >
          Deny all {fromAgent} from {props.item.agentId ?? 'no agent'}…
        </Button>
      )}
      <Button variant="danger" icon={<X size={15} />} onClick={props.actions.deny} disabled={props.deciding} data-testid="approval-deny" aria-keyshortcuts="d">
        Deny… <KeyHint k="d" />
      </Button>
    </div>
  )
}

/** A key shown on a button; the button's `aria-keyshortcuts` tells assistive technology. */
function KeyHint(props: { k: string }) {
  return (
    <span aria-hidden="true">
      <Kbd>{props.k}</Kbd>
    </span>
  )
}

function Outcome(props: { item: ApprovalView }) {
  const decision = props.item.decision
  if (!decision) return <div className="appr-outcome">This request is {props.item.status}; no decision is recorded.</div>
  return (
    <div className={`appr-outcome appr-outcome-${statusTone(props.item.status)}`} data-testid="approval-outcome">
      <strong>{outcomeTitle(decision)}</strong>
      <span>
        by {decision.by} · <TimeAgo iso={decision.decidedAt} /> · delivered to {decision.delivered} {decision.delivered === 1 ? 'call' : 'calls'}
        {decision.ruleId && (
          <>
            {' · rule '}
            <a href="#/approvals?tab=rules" title={decision.ruleId}>
              {shortId(decision.ruleId)}
            </a>
          </>
        )}
      </span>
      <span>
        <span className="appr-muted">{decision.decision === 'deny' ? 'Reason sent to the agent: ' : 'Recorded: '}</span>
        <TextAgent text={decision.reason} />
      </span>
    </div>
  )
}
