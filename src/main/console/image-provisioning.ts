import { AirlockError } from '@shared/errors'
import type { z } from 'zod'
import type { providerImagesSchema } from '@shared/ipc/providers'

/** One step of a provisioning, as `providers.imageProgress` carries it. */
export type ImageProgress = { image: string; stage: string; percent?: number }

/**
 * The container engine as image provisioning needs it (a port: the host adapts the docker
 * provider's engine to it, so the console never reaches provider internals).
 */
export interface ImageEngine {
  /** The languages an image can be provisioned for. */
  readonly languages: readonly string[]
  /** The image name of a language at a tag. */
  imageOf(language: string, tag: string): string
  check(): Promise<{ ok: true } | { ok: false; reason: string }>
  list(): Promise<{ id: string; tags: string[]; languages: string[]; sizeBytes: number; created: string }[]>
  provision(options: {
    language: string
    workDir: string
    fromRegistry: boolean
    mirror?: string
    suite?: string
    rootfsTarball?: string
    tag?: string
    onProgress: (progress: ImageProgress) => void
  }): Promise<string[]>
}

/** What `providers.images` returns. */
export type ProviderImagesView = z.input<typeof providerImagesSchema>

/** Stable codes of a provisioning that cannot start. */
export type ImageProvisioningErrorCode = 'providers.unknown_language' | 'providers.provisioning_busy' | 'providers.engine_unavailable'

/** A provisioning that cannot start (a failure after it started arrives as a `failed:` progress event). */
export class ImageProvisioningError extends AirlockError<ImageProvisioningErrorCode> {}

/** What the service is built from. */
export type ImageProvisioningOptions = {
  engine: ImageEngine
  /** Scratch space for root filesystems (`<home>/images`). */
  workDir: string
  /** Where progress goes (the host publishes `providers.imageProgress`). */
  onProgress: (progress: ImageProgress) => void
  /**
   * Fixed provisioning inputs: the Debian mirror and suite (default: this machine's apt mirror),
   * the operator's own root filesystem tarball instead of debootstrap, the image tag (default `latest`).
   */
  provision?: { mirror?: string; suite?: string; rootfsTarball?: string; tag?: string }
  logError?: (message: string, error: unknown) => void
}

/**
 * The Docker images of the Providers view (SPEC §4, §11): the engine's state, the Airlock images
 * in it, the languages that can be provisioned, and one provisioning at a time. `provision`
 * returns once the provisioning started; its progress goes to `onProgress`, percent below 100
 * until the last event, which is `done` at 100 or a stage `failed: <message>`.
 */
export class ImageProvisioning {
  private current?: { language: string; finished: Promise<void> }

  constructor(private readonly options: ImageProvisioningOptions) {}

  /** The engine, Airlock's images in it, the provisionable languages, and the language being provisioned. */
  async images(): Promise<ProviderImagesView> {
    const languages = [...this.options.engine.languages]
    const provisioning = this.current?.language
    const engine = await this.options.engine.check()
    if (!engine.ok) return { engine: { ok: false, reason: engine.reason }, images: [], languages, ...(provisioning ? { provisioning } : {}) }
    const images = await this.options.engine.list()
    return {
      engine: { ok: true },
      images: images.map(({ id, tags, languages: served, sizeBytes, created }) => ({ id, tags, languages: served, sizeBytes, created })),
      languages,
      ...(provisioning ? { provisioning } : {})
    }
  }

  /**
   * Starts provisioning the image of `language`: offline (debootstrap here, no registry) or from
   * the registry. Refuses an unknown language, a second provisioning while one runs, and an
   * engine that does not answer; everything after that is reported through progress.
   */
  async provision(language: string, options: { offline?: boolean } = {}): Promise<{ started: true }> {
    if (!this.options.engine.languages.includes(language)) {
      throw new ImageProvisioningError(
        'providers.unknown_language',
        `No image is known for ${JSON.stringify(language)}; known languages: ${this.options.engine.languages.join(', ')}.`,
        { language }
      )
    }
    if (this.current) {
      throw new ImageProvisioningError(
        'providers.provisioning_busy',
        `The ${this.current.language} image is being provisioned now; one provisioning runs at a time. Wait until it is done.`,
        {
          language: this.current.language
        }
      )
    }
    // Taken before the first await, so a second call in the same tick is refused too.
    let finish = () => undefined as void
    this.current = { language, finished: new Promise<void>((resolve) => (finish = resolve)) }
    try {
      const engine = await this.options.engine.check()
      if (!engine.ok) throw new ImageProvisioningError('providers.engine_unavailable', `Cannot provision: ${engine.reason}.`, { language })
    } catch (error) {
      this.current = undefined
      finish()
      throw error
    }
    // The last event goes out once the next provisioning may start: a view that reloads on it sees none running.
    void this.run(language, options.offline === true).then((last) => {
      this.current = undefined
      finish()
      this.publish(last)
    })
    return { started: true }
  }

  /** Resolves when no provisioning runs (shutdown and tests wait on it). */
  async idle(): Promise<void> {
    await this.current?.finished
  }

  /** Provisions; resolves with the last event to publish (`done` at 100, or `failed: <message>`), never rejects. */
  private async run(language: string, offline: boolean): Promise<ImageProgress> {
    const fixed = this.options.provision ?? {}
    const image = this.options.engine.imageOf(language, fixed.tag ?? 'latest')
    // Only this service says 100: a layer pulled in full or the provisioner's own `done` is not the
    // end yet. The bar never goes back (debootstrap names some steps out of order; layers restart at 0).
    let reached = 0
    const progress = ({ stage, percent, image: source }: ImageProgress) => {
      if (stage === 'done') return
      if (percent !== undefined) reached = Math.max(reached, Math.min(Math.max(percent, 0), 99))
      this.publish({ image, stage: source === image || source.includes(image) ? stage : `${source}: ${stage}`, percent: reached })
    }
    this.publish({ image, stage: offline ? 'starting (offline: building from Debian packages)' : 'starting (from the registry)', percent: 0 })
    try {
      await this.options.engine.provision({
        language,
        workDir: this.options.workDir,
        fromRegistry: !offline,
        mirror: fixed.mirror,
        suite: fixed.suite,
        rootfsTarball: offline ? fixed.rootfsTarball : undefined,
        tag: fixed.tag,
        onProgress: progress
      })
      return { image, stage: 'done', percent: 100 }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      const hint = offline ? '' : ' (no registry reachable? provision it offline instead: it is built here from Debian packages)'
      return { image, stage: `failed: ${message}${hint}` }
    }
  }

  private publish(progress: ImageProgress): void {
    try {
      this.options.onProgress(progress)
    } catch (error) {
      this.options.logError?.('Airlock: an image progress event could not be published', error)
    }
  }
}
