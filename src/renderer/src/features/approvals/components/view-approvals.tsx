import type { ApprovalView } from '@shared/approvals'
import { Keyboard } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { Button, Tabs, ViewHeader } from '../../../ui'
import { useApprovalsQuery } from '../hooks/use-approvals-query'
import { useTriageKeys } from '../hooks/use-triage-keys'
import { rememberBlocker, sessionBlocker } from '../lib/queue'
import { ruleState } from '../lib/rules'
import type { TriageAction } from '../lib/triage-keys'
import { useApprovalsStore } from '../store/approvals-store'
import '../approvals.css'
import { DialogApproveRule } from './dialog-approve-rule'
import { DialogDeny } from './dialog-deny'
import { DialogKeyboardHelp } from './dialog-keyboard-help'
import { NoteNotifications } from './note-notifications'
import type { DetailActions } from './pane-approval-detail'
import { PaneQueue } from './pane-queue'
import { PanelRules } from './panel-rules'

/** How long after a request appears in the detail pane its buttons ignore clicks. */
const clickGuardMs = 400

type OpenDialog = { kind: 'rule'; item: ApprovalView } | { kind: 'deny'; items: ApprovalView[] } | { kind: 'help' }

/**
 * The Approvals view (SPEC §7, §11): the live queue across agents with keyboard triage, and the
 * remembered rules. Every decision goes to the host; the list follows `approvals.changed`.
 */
export function ApprovalsView() {
  const refreshQueue = useApprovalsStore((state) => state.refreshQueue)
  const refreshRules = useApprovalsStore((state) => state.refreshRules)
  // Counts only once the host answered: never a placeholder zero.
  const pending = useApprovalsStore((state) => (state.queueStatus === 'ready' ? state.items.length : undefined))
  const activeRules = useApprovalsStore((state) =>
    state.rulesStatus === 'ready' ? state.rules.filter((rule) => ruleState(rule, Date.now()) === 'active').length : undefined
  )
  const selectedId = useApprovalsStore((state) => state.selectedId)
  const shownSince = useRef(0)
  const decide = useApprovalsStore((state) => state.decide)
  const decideMany = useApprovalsStore((state) => state.decideMany)
  const step = useApprovalsStore((state) => state.step)
  const [tab, setTab] = useApprovalsQuery()
  const [dialog, setDialog] = useState<OpenDialog>()
  const [notice, setNotice] = useState<string>()

  useEffect(() => {
    void refreshQueue()
    void refreshRules()
  }, [refreshQueue, refreshRules])
  useEffect(() => {
    shownSince.current = Date.now()
  }, [selectedId])

  /** The request the keys and buttons act on: the selected one, and only while it is pending. */
  const target = (): ApprovalView | undefined => {
    const state = useApprovalsStore.getState()
    if (state.decidingId !== undefined) return undefined
    return state.items.find((item) => item.id === state.selectedId)
  }
  /** The requests picked for a bulk decision that are still pending. */
  const picked = (): ApprovalView[] => {
    const state = useApprovalsStore.getState()
    return state.items.filter((item) => state.checked.includes(item.id))
  }
  const act = (action: TriageAction) => {
    if (action === 'help') return setDialog({ kind: 'help' })
    if (tab !== 'queue') return
    if (action === 'next' || action === 'previous') {
      setNotice(undefined)
      return step(action === 'next' ? 1 : -1)
    }
    const state = useApprovalsStore.getState()
    if (action === 'clear') return state.clearChecked()
    if (action === 'check' || action === 'checkAgent') {
      const item = target()
      if (!item) return
      return action === 'check' ? state.toggleChecked(item.id) : state.checkAgent(item.agentId)
    }
    const bulk = picked()
    if (bulk.length > 0) {
      if (state.decidingId !== undefined) return
      setNotice(undefined)
      if (action === 'approve') return void approveMany(bulk)
      if (action === 'deny') return setDialog({ kind: 'deny', items: bulk })
      return setNotice(
        `With ${bulk.length} picked, a approves and d denies them all; ${action === 'session' ? 's' : 'r'} decides one request at a time — press Esc to clear the picks first.`
      )
    }
    const item = target()
    if (!item) {
      const state = useApprovalsStore.getState()
      if (state.decidingId === undefined && state.selectedId !== undefined)
        setNotice('This request is not pending: there is nothing to decide. Press j or k to go back to the queue.')
      return
    }
    setNotice(undefined)
    if (action === 'approve') return void decide({ id: item.id, decision: 'approve', scope: 'once' })
    if (action === 'session') {
      const blocker = sessionBlocker(item)
      if (blocker) return setNotice(`Cannot approve for the session: ${blocker}`)
      return void decide({ id: item.id, decision: 'approve', scope: 'session' })
    }
    if (action === 'rule') {
      const blocker = rememberBlocker(item)
      if (blocker) return setNotice(`Cannot approve as a rule: ${blocker}`)
      return setDialog({ kind: 'rule', item })
    }
    if (action === 'deny') setDialog({ kind: 'deny', items: [item] })
  }
  const approveMany = async (items: ApprovalView[]) => {
    const { refused } = await decideMany(items.map((item) => ({ id: item.id, decision: 'approve' as const, scope: 'once' as const })))
    if (refused.length > 0) setNotice(`${refused.length} of ${items.length} could not be approved: ${refused[0]}`)
  }
  /** Opens the deny dialog for every pending request of one agent. */
  const denyAgent = (agentId: string | null) => {
    const items = useApprovalsStore.getState().items.filter((item) => item.agentId === agentId)
    if (items.length > 0) setDialog({ kind: 'deny', items })
  }
  useTriageKeys(true, dialog !== undefined, act)
  // A button click right after the selection changed (the second click of a double-click that
  // just decided the item before) must not decide the request that took its place.
  const click = (action: TriageAction) => () => {
    if (Date.now() - shownSince.current >= clickGuardMs) act(action)
  }
  const actions: DetailActions = {
    approve: click('approve'),
    session: click('session'),
    rule: click('rule'),
    deny: click('deny'),
    denyAgent,
    approvePicked: () => act('approve'),
    denyPicked: () => act('deny')
  }
  const close = (open: boolean) => !open && setDialog(undefined)

  /** Decides from a dialog: closes it when the host recorded the decision, else returns its message. */
  const decideFromDialog = async (input: Parameters<typeof decide>[0]): Promise<string | undefined> => {
    const done = await decide(input)
    if (done) {
      setDialog(undefined)
      return undefined
    }
    return useApprovalsStore.getState().decideError?.message ?? 'The host refused the decision.'
  }

  return (
    <>
      <ViewHeader
        title="Approvals"
        subtitle="Requests your agents’ policies leave to a person. Decide with the buttons or the keyboard; a request nobody decides is denied when it expires."
        actions={
          <Button
            variant="ghost"
            icon={<Keyboard size={15} />}
            onClick={() => setDialog({ kind: 'help' })}
            aria-keyshortcuts="?"
            data-testid="approvals-keys-open"
          >
            Keys
          </Button>
        }
      />
      <NoteNotifications />
      <Tabs
        value={tab}
        onValueChange={(value) => setTab(value === 'rules' ? 'rules' : 'queue')}
        label="Approvals"
        items={[
          {
            value: 'queue',
            testId: 'tab-queue',
            label: (
              <>
                Queue
                {pending !== undefined && (
                  <>
                    {' '}
                    <span className={`appr-tab-count${pending > 0 ? ' appr-tab-count-hot' : ''}`}>{pending}</span>
                  </>
                )}
              </>
            ),
            content: <PaneQueue actions={actions} notice={notice} />
          },
          {
            value: 'rules',
            testId: 'tab-rules',
            label: (
              <>
                Rules
                {activeRules !== undefined && (
                  <>
                    {' '}
                    <span className="appr-tab-count">{activeRules}</span>
                  </>
                )}
              </>
            ),
            content: <PanelRules />
          }
        ]}
      />
      <DialogApproveRule
        open={dialog?.kind === 'rule'}
        item={dialog?.kind === 'rule' ? dialog.item : undefined}
        onOpenChange={close}
        onApprove={(choice) =>
          decideFromDialog({
            id: (dialog as { item: ApprovalView }).item.id,
            decision: 'approve',
            scope: 'rule',
            rule: {
              scope: choice.scope,
              ...(choice.ttlSeconds !== null ? { ttlSeconds: choice.ttlSeconds } : {}),
              ...(choice.matcher ? { matcher: choice.matcher } : {})
            }
          })
        }
      />
      <DialogDeny
        open={dialog?.kind === 'deny'}
        items={dialog?.kind === 'deny' ? dialog.items : []}
        onOpenChange={close}
        onDeny={async (reason) => {
          const items = (dialog as { items: ApprovalView[] }).items
          if (items.length === 1) return decideFromDialog({ id: items[0]!.id, decision: 'deny', reason })
          const { refused } = await decideMany(items.map((item) => ({ id: item.id, decision: 'deny' as const, reason })))
          if (refused.length === items.length) return refused[0]
          setDialog(undefined)
          if (refused.length > 0) setNotice(`${refused.length} of ${items.length} could not be denied (decided elsewhere meanwhile): ${refused[0]}`)
          return undefined
        }}
      />
      <DialogKeyboardHelp open={dialog?.kind === 'help'} onOpenChange={close} />
    </>
  )
}
