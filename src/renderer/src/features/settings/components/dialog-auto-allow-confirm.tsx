import { ConfirmDialog } from '../../../ui'

/**
 * The confirmation before `access_control_policy.auto_allow` goes on: exactly which gates it
 * approves without asking, and which limits stay in force (SPEC §3.6).
 */
export function DialogAutoAllowConfirm(props: { open: boolean; onOpenChange(open: boolean): void; onConfirm(): void }) {
  return (
    <ConfirmDialog
      open={props.open}
      onOpenChange={props.onOpenChange}
      title="Approve every policy gate automatically?"
      confirmLabel="Turn on auto-allow"
      danger
      testId="dialog-auto-allow-confirm"
      onConfirm={props.onConfirm}
    >
      <p>Nothing will wait for you in Approvals. For every agent, from the next call on:</p>
      <p className="set-dialog-heading">Approved without asking you</p>
      <ul>
        <li>
          tool calls the policy would hold for you: risky commands and file changes, commands your policy marks &ldquo;ask&rdquo;, and every write or execution
          of agents whose profile says <code>ask: always</code>;
        </li>
        <li>
          classification gates: reads above an agent&apos;s classification ceiling, and write-downs that would send labelled data somewhere labelled lower;
        </li>
        <li>
          execution resources that ask before they start (<code>approvalRequired</code>, <code>approvalMode: always</code>).
        </li>
      </ul>
      <p className="set-dialog-heading">Still enforced</p>
      <ul>
        <li>
          everything the policy blocks: blocked commands and paths, tools an agent does not have, the asks of agents with <code>ask: never</code> (denied),
          resources with <code>approvalMode: never</code>;
        </li>
        <li>
          provider and sandbox isolation (bubblewrap, containers, seccomp), workspace path bounds, command allowlists, the network mode, and the time, CPU,
          memory and output limits.
        </li>
      </ul>
      <p>
        Each call approved this way is recorded with the reason <code>access_control_policy.auto_allow</code>. You can turn it off here at any time.
      </p>
    </ConfirmDialog>
  )
}
