import type { HistoryDetail } from '@shared/ipc/history'
import { ArrowRight, ExternalLink } from 'lucide-react'
import { Badge, TextAgent, type BadgeTone } from '../../../ui'
import { FactCall, SectionCall } from './section-call'

const decisionTones: Record<string, BadgeTone> = { allow: 'ok', deny: 'bad', ask: 'warn', approval_required: 'warn' }
const approvalTones: Record<string, BadgeTone> = { approved: 'ok', denied: 'bad', expired: 'warn', timed_out: 'warn', pending: 'info' }

/** What the policy decided for the call and why: rule, risk flags, the commands it parsed, taint before and after, and the approval. */
export function PaneCallPolicy({ detail }: { detail: HistoryDetail }) {
  const { policy, approval } = detail
  return (
    <SectionCall title="Policy and approval" testId="history-detail-policy">
      {!policy && !approval && <p className="history-dim">No policy decision was recorded for this call.</p>}
      {policy && (
        <dl className="history-facts history-facts-list">
          <FactCall label="Decision" wide>
            <span className="history-inline">
              <Badge tone={decisionTones[policy.decision] ?? 'neutral'}>{policy.decision}</Badge>
              {policy.rule && (
                <code>
                  <TextAgent text={policy.rule} />
                </code>
              )}
              {policy.reason && (
                <span className="history-dim">
                  <TextAgent text={policy.reason} />
                </span>
              )}
            </span>
          </FactCall>
          {policy.riskFlags && policy.riskFlags.length > 0 && (
            <FactCall label="Risk flags" wide>
              <span className="history-inline">
                {policy.riskFlags.map((flag) => (
                  <Badge key={flag} tone="warn">
                    {flag}
                  </Badge>
                ))}
              </span>
            </FactCall>
          )}
          {policy.taint && (
            <FactCall label="Taint" wide testId="history-taint">
              <span className="history-inline">
                <Badge tone="neutral" title="The session's taint when the call was decided">
                  {policy.taint}
                </Badge>
                {policy.taintAfter ? (
                  <>
                    <ArrowRight size={13} aria-hidden="true" />
                    <span className="visually-hidden">after the call:</span>
                    <Badge tone={policy.taintAfter !== policy.taint ? 'warn' : 'neutral'} title="The session's taint after the call ran">
                      {policy.taintAfter}
                    </Badge>
                  </>
                ) : (
                  <span className="history-dim">after: not recorded</span>
                )}
                {policy.classification?.reads && <span className="history-dim">read {policy.classification.reads}</span>}
                {policy.classification?.sink && <span className="history-dim">sent to {policy.classification.sink}</span>}
              </span>
            </FactCall>
          )}
          {policy.planted && policy.planted.length > 0 && (
            <FactCall label="Runs later" wide testId="history-detail-planted">
              <ul className="history-planted" aria-label="Commands this write planted where they run later">
                {policy.planted.map((entry, index) => (
                  <li key={index}>
                    <span className="history-dim">{entry.where}</span>{' '}
                    <code className="history-token">
                      <TextAgent text={entry.line} />
                    </code>{' '}
                    {entry.verdict !== 'run' && (
                      <Badge tone={entry.verdict === 'blocked' ? 'bad' : 'warn'}>{entry.verdict === 'blocked' ? 'blocked if typed' : 'asks if typed'}</Badge>
                    )}
                  </li>
                ))}
              </ul>
            </FactCall>
          )}
          {policy.commands && policy.commands.length > 0 && (
            <FactCall label="Commands" wide testId="history-detail-commands">
              <ol className="history-argv-list" aria-label="Commands the policy parsed from the line">
                {policy.commands.map((argv, index) => (
                  <li key={index} className="history-argv">
                    {argv.map((token, at) => (
                      <code key={at} className={at === 0 ? 'history-token history-token-program' : 'history-token'}>
                        <TextAgent text={token} />
                      </code>
                    ))}
                  </li>
                ))}
              </ol>
            </FactCall>
          )}
        </dl>
      )}
      {approval && (
        <div className="history-approval" data-testid="history-detail-approval">
          <span className="history-inline">
            <span className="history-fact-label">Approval</span>
            <Badge tone={approvalTones[approval.status] ?? 'neutral'}>{approval.status}</Badge>
            {approval.scope && <span className="history-dim">scope {approval.scope}</span>}
            {approval.ruleId && (
              <span className="history-dim">
                answered by rule <code>{approval.ruleId}</code>
              </span>
            )}
          </span>
          {approval.reason && (
            <p className="history-approval-reason">
              <TextAgent text={approval.reason} />
            </p>
          )}
          {approval.approvalId && (
            <a className="history-link" href={`#/approvals?id=${encodeURIComponent(approval.approvalId)}`} data-testid="history-approval-link">
              <ExternalLink size={13} aria-hidden="true" /> Open approval <code>{approval.approvalId.slice(0, 8)}</code> in Approvals
            </a>
          )}
        </div>
      )}
    </SectionCall>
  )
}
