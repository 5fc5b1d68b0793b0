import type { DoctorReport } from '@shared/ipc/doctor'
import type { StateCreator } from 'zustand'
import type { ProvidersClient } from './client'
import type { ProvidersState } from './providers-state'

/** The doctor's last report (claimed vs verified per axis) and whether a run is going on. */
export type DoctorSlice = {
  doctor: DoctorReport | null
  doctorStatus: 'idle' | 'loading' | 'ready' | 'running' | 'error'
  doctorError?: string
  loadDoctor(): Promise<void>
  runDoctor(): Promise<void>
  /** A run started or ended in any console (or the CLI through this host): follow it. */
  doctorChanged(change: { running: boolean }): void
}

/** The doctor slice: `doctor.latest` on visit; `doctor.run` tries the escapes (tens of seconds). */
export const createDoctorSlice =
  (client: ProvidersClient): StateCreator<ProvidersState, [], [], DoctorSlice> =>
  (set, get) => ({
    doctor: null,
    doctorStatus: 'idle',
    async loadDoctor() {
      if (get().doctorStatus !== 'running') set({ doctorStatus: 'loading', doctorError: undefined })
      const result = await client.doctor.latest({})
      if (!result.ok) return set({ doctorStatus: 'error', doctorError: result.error.message })
      set((state) => ({ doctor: result.value.report, doctorStatus: state.doctorStatus === 'running' ? 'running' : 'ready' }))
    },
    async runDoctor() {
      set({ doctorStatus: 'running', doctorError: undefined })
      const result = await client.doctor.run({})
      if (result.ok) set({ doctor: result.value, doctorStatus: 'ready' })
      else set({ doctorStatus: 'error', doctorError: result.error.message })
    },
    doctorChanged({ running }) {
      if (running) return set({ doctorStatus: 'running' })
      set({ doctorStatus: 'loading' })
      void get().loadDoctor()
    }
  })
