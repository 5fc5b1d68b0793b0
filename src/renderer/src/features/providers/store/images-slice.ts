import type { StateCreator } from 'zustand'
import { readProgress, type ImageProgressEvent, type ProviderImages, type ProvisionProgress } from '../lib/images'
import type { ProvidersClient } from './client'
import type { ProvidersState } from './providers-state'

/** The Docker engine's Airlock images and the provisioning in progress (one at a time). */
export type ImagesSlice = {
  images?: ProviderImages
  imagesStatus: 'idle' | 'loading' | 'ready' | 'error'
  imagesError?: string
  /** The language the operator asked to provision here (the host runs one at a time). */
  provisioningLanguage?: string
  progress?: ProvisionProgress
  provisionError?: string
  loadImages(): Promise<void>
  provision(language: string, offline: boolean): Promise<boolean>
  receiveProgress(event: ImageProgressEvent): void
}

/** The images slice: refreshes the list when a provisioning ends (done or failed). */
export const createImagesSlice =
  (client: ProvidersClient): StateCreator<ProvidersState, [], [], ImagesSlice> =>
  (set, get) => ({
    imagesStatus: 'idle',
    async loadImages() {
      if (get().imagesStatus !== 'ready') set({ imagesStatus: 'loading' })
      const result = await client.providers.images({})
      if (!result.ok) return set({ imagesStatus: 'error', imagesError: result.error.message })
      const provisioning = result.value.provisioning
      set({
        images: result.value,
        imagesStatus: 'ready',
        imagesError: undefined,
        // A provisioning started elsewhere (the CLI, another console) shows here too.
        provisioningLanguage: provisioning ?? (get().progress?.state === 'running' ? get().provisioningLanguage : undefined)
      })
    },
    async provision(language, offline) {
      set({ provisioningLanguage: language, provisionError: undefined, progress: { image: language, stage: 'starting', state: 'running', language } })
      const result = await client.providers.provisionImage({ language, offline })
      if (!result.ok) {
        set({ provisioningLanguage: undefined, progress: undefined, provisionError: result.error.message })
        return false
      }
      return true
    },
    receiveProgress(event) {
      const progress = readProgress(event, get().provisioningLanguage ?? get().images?.provisioning)
      set({ progress, ...(progress.state === 'running' ? {} : { provisioningLanguage: undefined }) })
      if (progress.state !== 'running') void get().loadImages()
    }
  })
