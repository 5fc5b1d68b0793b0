// @vitest-environment jsdom
import type { AgentView, RoleView } from '@shared/agents'
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createElement } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { formValuesFrom, inheritedProfile } from '../lib/profile-form'
import { FormAgentProfile } from './form-agent-profile'

// The form is the unit here: `onSubmit` is the boundary to the store, so a spy stands in for it.
const roles: RoleView[] = [
  { id: 'dev', name: 'Developers', defaults: { ask: 'always', limits: { pids: 64 } }, agentCount: 1, createdAt: '2026-01-01T00:00:00Z' }
]

function renderForm(mode: 'create' | 'edit', agent?: AgentView, existingIds: string[] = []) {
  const onSubmit = vi.fn()
  const role = roles.find((r) => r.id === agent?.role)
  render(
    createElement(FormAgentProfile, {
      mode,
      initial: formValuesFrom(agent, inheritedProfile(role)),
      roles,
      existingIds,
      busy: false,
      onSubmit,
      onCancel: vi.fn()
    })
  )
  return { onSubmit, user: userEvent.setup() }
}

const input = (testId: string) => within(screen.getByTestId(testId)).getByRole('textbox')
const select = (testId: string) => within(screen.getByTestId(testId)).getByRole('combobox')

afterEach(cleanup)

describe('FormAgentProfile', () => {
  it('shows the schema message at each invalid field and sends nothing', async () => {
    const { onSubmit, user } = renderForm('create', undefined, ['taken'])
    await user.type(input('agent-field-agentId'), 'Coder')
    await user.type(input('agent-field-limits.pids'), '0')
    await user.type(input('agent-field-limits.memoryMb'), 'lots')
    await user.click(screen.getByTestId('agent-create-submit'))

    expect(onSubmit).not.toHaveBeenCalled()
    expect(screen.getByTestId('agent-field-agentId-error').textContent).toMatch(/must be a slug/)
    expect(screen.getByTestId('agent-field-limits.pids-error').textContent).toBe('Too small: expected number to be >0')
    expect(screen.getByTestId('agent-field-limits.memoryMb-error').textContent).toMatch(/expected number, received NaN/)
    expect(screen.getByTestId('agent-form-problems').textContent).toBe('3 fields need a fix.')
    // The first invalid field takes the focus and says it is invalid.
    expect(input('agent-field-agentId').getAttribute('aria-invalid')).toBe('true')
    expect(document.activeElement).toBe(input('agent-field-agentId'))
    // A taken id is refused before main is asked.
    await user.clear(input('agent-field-agentId'))
    await user.type(input('agent-field-agentId'), 'taken')
    expect(screen.getByTestId('agent-field-agentId-error').textContent).toBe('An agent with the id taken already exists.')
  })

  it('re-checks as the operator fixes fields, then hands over the parsed input', async () => {
    const { onSubmit, user } = renderForm('create')
    await user.type(input('agent-field-limits.pids'), '0')
    await user.click(screen.getByTestId('agent-create-submit'))
    expect(screen.getByTestId('agent-field-agentId-error')).toBeTruthy()

    await user.type(input('agent-field-agentId'), 'coder')
    await user.clear(input('agent-field-limits.pids'))
    await user.type(input('agent-field-limits.pids'), '32')
    expect(screen.queryByTestId('agent-field-agentId-error')).toBeNull()
    expect(screen.queryByTestId('agent-field-limits.pids-error')).toBeNull()

    await user.type(input('agent-field-name'), 'Coding assistant')
    await user.selectOptions(select('agent-field-role'), 'dev')
    await user.selectOptions(select('agent-field-network'), 'proxy')
    await user.type(input('agent-field-denylist'), 'curl{Enter}ssh')
    await user.click(screen.getByTestId('agent-create-submit'))
    expect(onSubmit).toHaveBeenCalledTimes(1)
    expect(onSubmit).toHaveBeenCalledWith({
      agentId: 'coder',
      name: 'Coding assistant',
      role: 'dev',
      profile: { network: 'proxy', limits: { pids: 32 }, denylist: ['curl', 'ssh'] }
    })
  })

  it('shows what a field inherits from the chosen role', async () => {
    const { user } = renderForm('create')
    expect(select('agent-field-ask').querySelector('option')!.textContent).toBe('Default: on_risk')
    await user.selectOptions(select('agent-field-role'), 'dev')
    expect(select('agent-field-ask').querySelector('option')!.textContent).toBe('From role dev: always')
    expect(input('agent-field-limits.pids').getAttribute('placeholder')).toBe('From role dev: 64')
  })

  it('edits an existing profile: the id is fixed, untouched keys are kept, clearing the role sends null', async () => {
    const agent: AgentView = {
      id: 'coder',
      name: 'Coder',
      role: 'dev',
      enabled: true,
      profile: { network: 'proxy', mcpServers: [{ name: 'gh', url: 'https://gh.test', headers: { Authorization: '<redacted>' } }] },
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z'
    }
    const { onSubmit, user } = renderForm('edit', agent)
    expect(input('agent-field-agentId').hasAttribute('readonly')).toBe(true)
    await user.selectOptions(select('agent-field-ask'), 'always')
    await user.selectOptions(select('agent-field-role'), '')
    await user.click(screen.getByTestId('agent-edit-submit'))
    expect(onSubmit).toHaveBeenCalledWith({
      agentId: 'coder',
      name: 'Coder',
      role: null,
      profile: { ask: 'always', network: 'proxy', mcpServers: agent.profile.mcpServers }
    })
  })
})
