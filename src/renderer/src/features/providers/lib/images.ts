import type { providerImagesSchema, providersContract } from '@shared/ipc/providers'
import type { z } from 'zod'

/** What `providers.images` returns: the engine, Airlock images, provisionable languages, the one provisioning. */
export type ProviderImages = z.infer<typeof providerImagesSchema>

/** An Airlock image in the Docker engine. */
export type AirlockImage = ProviderImages['images'][number]

/** One `providers.imageProgress` event. */
export type ImageProgressEvent = z.infer<typeof providersContract.events.imageProgress.payload>

/** The provisioning progress the view shows: the last event, read as running, done or failed. */
export type ProvisionProgress = ImageProgressEvent & { language?: string; state: 'running' | 'done' | 'failed'; error?: string }

/** Reads a progress event: percent 100 is done, a stage `failed: <message>` is a failure with that message. */
export function readProgress(event: ImageProgressEvent, language?: string): ProvisionProgress {
  const failed = /^failed:\s*/i.exec(event.stage)
  if (failed) return { ...event, language, state: 'failed', error: event.stage.slice(failed[0].length) || 'provisioning failed' }
  return { ...event, language, state: event.percent === 100 ? 'done' : 'running' }
}

/** The Airlock images that serve a language (labelled with it), newest first. */
export function imagesOfLanguage(images: readonly AirlockImage[], language: string): AirlockImage[] {
  return images.filter((image) => image.languages.includes(language)).sort((a, b) => b.created.localeCompare(a.created))
}

/** A byte count for people (`812 MB`). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—'
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${unit === 0 ? value : value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`
}
