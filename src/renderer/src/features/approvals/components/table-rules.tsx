import type { RuleView } from '@shared/approvals'
import { Pencil, Trash2 } from 'lucide-react'
import { visibleText } from '@shared/visible-text'
import { Badge, Button, Table, TextAgent, TimeAgo, useNow, type TableColumn } from '../../../ui'
import { riskOf, timeLeft } from '../lib/queue'
import { matcherKindLabel, ruleScopeLabel, ruleState, rulesInOrder, shortId } from '../lib/rules'

const columns: TableColumn[] = [
  { label: 'Rule' },
  { label: 'Applies to' },
  { label: 'Hits', numeric: true },
  { label: 'Last match' },
  { label: 'Expires' },
  { label: 'Created', className: 'appr-col-created' },
  { label: 'Actions', hidden: true }
]

/**
 * Remembered rules: what each matches (the host's description), who it applies to, the risk flags
 * it answers, how often it matched and when last, when it ends, and edit/revoke. Ended rules
 * (revoked, expired) are listed muted after the active ones.
 */
export function TableRules(props: { rules: RuleView[]; onEdit(rule: RuleView): void; onRevoke(rule: RuleView): void }) {
  const now = useNow(5000)
  return (
    <Table columns={columns} className="appr-rules" testId="table-rules">
      {rulesInOrder(props.rules, now).map((rule) => {
        const state = ruleState(rule, now)
        return (
          <tr key={rule.id} data-testid={`rule-row-${rule.id}`} data-state={state} className={state === 'active' ? undefined : 'appr-rule-ended'}>
            <td>
              <div className="appr-rule-desc">
                <TextAgent text={rule.description} />
              </div>
              <div className="appr-rule-sub">
                <Badge tone="neutral">{matcherKindLabel(rule.matcher)}</Badge>
                {rule.riskFlags.map((flag) => (
                  <Badge key={flag} tone={riskOf(flag).tone} title={`answers requests flagged ${riskOf(flag).label}`}>
                    {riskOf(flag).label}
                  </Badge>
                ))}
                {rule.approvalId && (
                  <a href={`#/approvals?id=${encodeURIComponent(rule.approvalId)}`} title={rule.approvalId}>
                    from request {shortId(rule.approvalId)}
                  </a>
                )}
              </div>
            </td>
            <td>
              <Badge tone={rule.scope === 'global' ? 'warn' : 'info'}>{rule.scope}</Badge>
              <div className="appr-rule-sub">{ruleScopeLabel(rule)}</div>
            </td>
            <td className="table-num" data-testid={`rule-hits-${rule.id}`}>
              {rule.matchCount}
            </td>
            <td>{rule.lastMatchedAt ? <TimeAgo iso={rule.lastMatchedAt} /> : <span className="appr-muted">never</span>}</td>
            <td data-testid={`rule-expiry-${rule.id}`}>
              {state === 'revoked' ? (
                <Badge tone="neutral">revoked</Badge>
              ) : state === 'expired' ? (
                <Badge tone="neutral">expired</Badge>
              ) : rule.expiresAt ? (
                <time dateTime={rule.expiresAt} title={new Date(rule.expiresAt).toLocaleString()}>
                  in {timeLeft(rule.expiresAt, now)}
                </time>
              ) : rule.scope === 'session' ? (
                <span className="appr-muted">when the session ends</span>
              ) : (
                <span className="appr-muted">never</span>
              )}
            </td>
            <td className="appr-col-created">
              <TimeAgo iso={rule.createdAt} />
            </td>
            <td>
              {state !== 'revoked' && (
                <div className="appr-rule-actions">
                  <Button
                    size="sm"
                    variant="ghost"
                    icon={<Pencil size={13} />}
                    onClick={() => props.onEdit(rule)}
                    data-testid={`rule-edit-${rule.id}`}
                    aria-label={`Edit rule ${visibleText(rule.description)}`}
                  >
                    Edit
                  </Button>
                  <Button
                    size="sm"
                    variant="danger"
                    icon={<Trash2 size={13} />}
                    onClick={() => props.onRevoke(rule)}
                    data-testid={`rule-revoke-${rule.id}`}
                    aria-label={`Revoke rule ${visibleText(rule.description)}`}
                  >
                    Revoke
                  </Button>
                </div>
              )}
            </td>
          </tr>
        )
      })}
    </Table>
  )
}
