import type { AppError } from '@shared/result'
import type { StateCreator } from 'zustand'
import { appErrorOf, unwrap } from '../../../lib/call-result'
import type { CreateAgentInput, UpdateAgentInput } from '../lib/profile-form'
import type { AgentsState } from './agents-state'
import type { AgentsClient } from './client'

/** A token main returned (a new agent's, or a rotated one): shown once, kept only until dismissed. */
export type IssuedToken = { agentId: string; token: string; workspace?: string; reason: 'created' | 'rotated' }

/** Creating and editing agents' profiles, and the one-time token. */
export type ProfileSlice = {
  saving: boolean
  /** The host's error when a create or update was refused. */
  saveError?: AppError
  issued?: IssuedToken
  /** Registers an agent; resolves with its id, or undefined when the host refused (see `saveError`). */
  create(input: CreateAgentInput): Promise<string | undefined>
  update(input: UpdateAgentInput): Promise<boolean>
  rotateToken(agentId: string): Promise<void>
  dismissToken(): void
  clearSaveError(): void
}

/** Builds the profile slice. */
export const createProfileSlice =
  (client: AgentsClient): StateCreator<AgentsState, [], [], ProfileSlice> =>
  (set, get) => ({
    saving: false,
    async create(input) {
      set({ saving: true, saveError: undefined, issued: undefined })
      try {
        const created = await unwrap(client.agents.create(input))
        set({ issued: { agentId: created.agent.id, token: created.token, workspace: created.workspace, reason: 'created' } })
        await get().refreshAgents()
        return created.agent.id
      } catch (error) {
        set({ saveError: appErrorOf(error) })
        return undefined
      } finally {
        set({ saving: false })
      }
    },
    async update(input) {
      set({ saving: true, saveError: undefined })
      try {
        await unwrap(client.agents.update(input))
        await Promise.all([get().refreshAgents(), get().selectedId === input.agentId ? get().refreshDetail() : undefined])
        return true
      } catch (error) {
        set({ saveError: appErrorOf(error) })
        return false
      } finally {
        set({ saving: false })
      }
    },
    async rotateToken(agentId) {
      set({ error: undefined, issued: undefined })
      try {
        const { token } = await unwrap(client.agents.rotateToken({ agentId }))
        set({ issued: { agentId, token, reason: 'rotated' } })
      } catch (error) {
        set({ error: appErrorOf(error) })
      }
    },
    dismissToken() {
      set({ issued: undefined })
    },
    clearSaveError() {
      set({ saveError: undefined })
    }
  })
