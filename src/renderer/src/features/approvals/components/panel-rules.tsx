import type { RuleView } from '@shared/approvals'
import { ShieldCheck } from 'lucide-react'
import { useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { ConfirmDialog, EmptyState, ErrorBanner, Kbd, Loading, TextAgent } from '../../../ui'
import { useApprovalsStore } from '../store/approvals-store'
import { DialogEditRule } from './dialog-edit-rule'
import { TableRules } from './table-rules'

/** The Rules tab: remembered grants with their hit counts, edit and revoke (SPEC §7). */
export function PanelRules() {
  const { rules, status, error, showEnded, actionError } = useApprovalsStore(
    useShallow((state) => ({
      rules: state.rules,
      status: state.rulesStatus,
      error: state.rulesError,
      showEnded: state.showEndedRules,
      actionError: state.rulesActionError
    }))
  )
  const refresh = useApprovalsStore((state) => state.refreshRules)
  const setShowEnded = useApprovalsStore((state) => state.setShowEndedRules)
  const updateRule = useApprovalsStore((state) => state.updateRule)
  const revokeRule = useApprovalsStore((state) => state.revokeRule)
  const dismiss = useApprovalsStore((state) => state.dismissRulesActionError)
  const [editing, setEditing] = useState<RuleView>()
  const [revoking, setRevoking] = useState<RuleView>()
  useEffect(() => void refresh(), [refresh])

  if (status === 'idle' || status === 'loading') return <Loading label="Reading the rules…" />
  if (status === 'error') return <ErrorBanner message={error ?? 'The rules could not be read.'} onRetry={() => void refresh()} />
  const active = rules.filter((rule) => rule.revokedAt === null && (rule.expiresAt === null || Date.parse(rule.expiresAt) > Date.now())).length
  return (
    <div data-testid="panel-rules">
      {actionError && <ErrorBanner message={actionError} onDismiss={dismiss} />}
      <div className="appr-rules-bar">
        <span>
          {active} active {active === 1 ? 'rule' : 'rules'}
          {showEnded && rules.length > active ? ` · ${rules.length - active} ended` : ''}
        </span>
        <label className="appr-check">
          <input type="checkbox" checked={showEnded} onChange={(event) => void setShowEnded(event.target.checked)} data-testid="rules-show-ended" />
          Show revoked and expired
        </label>
      </div>
      {rules.length === 0 ? (
        <EmptyState title={showEnded ? 'No rules were ever made' : 'No active rules'} testId="rules-empty" icon={<ShieldCheck size={22} />}>
          <p>
            A rule lets matching requests run without asking. Make one from a pending request with <strong>Approve as rule…</strong> (<Kbd>r</Kbd>), or from the
            CLI with <code>airlock approvals approve &lt;id&gt; --scope rule</code>.
          </p>
        </EmptyState>
      ) : (
        <TableRules rules={rules} onEdit={setEditing} onRevoke={setRevoking} />
      )}
      <DialogEditRule
        rule={editing}
        onOpenChange={(open) => !open && setEditing(undefined)}
        onSave={async (change) => {
          const refused = await updateRule({ id: editing!.id, ...change })
          if (!refused) setEditing(undefined)
          return refused
        }}
      />
      <ConfirmDialog
        open={revoking !== undefined}
        onOpenChange={(open) => !open && setRevoking(undefined)}
        title="Revoke this rule?"
        confirmLabel="Revoke rule"
        danger
        onConfirm={() => void revokeRule(revoking!.id)}
        testId="dialog-rule-revoke"
      >
        <p>
          <code>{revoking && <TextAgent text={revoking.description} />}</code>
        </p>
        <p>
          Requests it matches will ask you again. It has matched {revoking?.matchCount ?? 0} times. A revoked rule cannot be restored; approve a request as a
          rule to make a new one.
        </p>
      </ConfirmDialog>
    </div>
  )
}
