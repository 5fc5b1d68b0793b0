import { useShallow } from 'zustand/react/shallow'
import { Dialog } from '../../../ui'
import { formValuesFrom, inheritedProfile, type CreateAgentInput, type UpdateAgentInput } from '../lib/profile-form'
import { useAgentsStore } from '../store/agents-store'
import { FormAgentProfile } from './form-agent-profile'

/** The profile form in a dialog: creating an agent (then its token shows once) or editing the selected one's profile. */
export function DialogAgentProfile(props: {
  mode: 'create' | 'edit'
  agentId?: string
  open: boolean
  onOpenChange(open: boolean): void
  onCreated?(agentId: string): void
}) {
  const { roles, saving, saveError, create, update, clearSaveError } = useAgentsStore(
    useShallow((state) => ({
      roles: state.roles,
      saving: state.saving,
      saveError: state.saveError?.message,
      create: state.create,
      update: state.update,
      clearSaveError: state.clearSaveError
    }))
  )
  const existingIds = useAgentsStore(useShallow((state) => state.agents.map((agent) => agent.id)))
  const operatorOrder = useAgentsStore((state) => state.operatorOrder)
  const agent = useAgentsStore((state) => (props.agentId ? state.agents.find((a) => a.id === props.agentId) : undefined))
  const close = (open: boolean) => {
    if (!open) clearSaveError()
    props.onOpenChange(open)
  }
  const submit = async (input: CreateAgentInput | UpdateAgentInput) => {
    if (props.mode === 'create') {
      const created = await create(input as CreateAgentInput)
      if (created) props.onCreated?.(created)
    } else if (await update(input as UpdateAgentInput)) {
      close(false)
    }
  }
  if (props.mode === 'edit' && !agent) return null
  const role = roles.find((r) => r.id === agent?.role)
  return (
    <Dialog
      open={props.open}
      onOpenChange={close}
      wide
      title={props.mode === 'create' ? 'New agent' : `Edit the profile of ${agent!.id}`}
      description={
        props.mode === 'create'
          ? 'Everything but the id is optional: an empty field keeps the default. The token is shown once, right after the agent is created.'
          : 'Changes apply to its open sessions at once. An empty field is inherited from the role or the defaults.'
      }
      testId={props.mode === 'create' ? 'dialog-agent-create' : 'dialog-agent-edit'}
    >
      {props.open && (
        <FormAgentProfile
          key={`${props.mode}:${agent?.id ?? ''}`}
          mode={props.mode}
          initial={formValuesFrom(agent, inheritedProfile(role, operatorOrder))}
          roles={roles}
          operatorOrder={operatorOrder}
          existingIds={existingIds}
          busy={saving}
          hostError={saveError}
          onSubmit={(input) => void submit(input)}
          onCancel={() => close(false)}
        />
      )}
    </Dialog>
  )
}
