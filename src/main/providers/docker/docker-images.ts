import type Docker from 'dockerode'
import { ExecutionResourceError } from '../../core'
import { runtimeProfiles, type RuntimeProfile } from './docker-config'
import { labels } from './docker-engine'

/** The image Airlock provisions for a language (offline or by `airlock images provision`). */
export function airlockImage(language: string): string {
  return `airlock/${language}:latest`
}

/** Registry images the developer and ci profiles may pull (with approval) when no Airlock image exists. */
export const registryImages: Record<string, string> = {
  python: 'python:3.12-slim',
  nodejs: 'node:20-slim',
  bash: 'debian:bookworm-slim',
  go: 'golang:1.22-bookworm',
  cpp: 'gcc:13-bookworm'
}

/** Progress of a pull or a provisioning, for events and the UI's progress bar. */
export type ImageProgress = { image: string; stage: string; percent?: number }

/** An image as `airlock images list` shows it. */
export type ImageSummary = { id: string; tags: string[]; languages: string[]; toolchains: Record<string, string>; sizeBytes: number; created: string }

/** Whether an image exists on the engine. */
export async function imageExists(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect()
    return true
  } catch {
    return false
  }
}

/**
 * Finds the image to run for a language under a profile: the configured image or the Airlock image
 * if present; otherwise strict fails (`docker_image_missing`, nothing pulled) and developer/ci
 * pull a registry image only with approval (`docker_image_pull_approval_required`), reporting
 * progress, or fail with `docker_image_pull_failed`.
 */
export async function resolveImage(
  docker: Docker,
  options: { language?: string; image?: string; profile: RuntimeProfile; pullApproved?: boolean; onProgress?: (progress: ImageProgress) => void }
): Promise<string> {
  const wanted = options.image ?? (options.language ? airlockImage(options.language) : undefined)
  if (!wanted) throw new ExecutionResourceError('docker_image_missing', 'No image configured and no language given to choose one.', {})
  if (await imageExists(docker, wanted)) return wanted
  if (!runtimeProfiles[options.profile].pull) {
    throw new ExecutionResourceError(
      'docker_image_missing',
      `The image ${wanted} is not on this engine and the ${options.profile} profile never pulls. Provision it: airlock images provision ${options.language ?? '<language>'} --offline`,
      { image: wanted, profile: options.profile }
    )
  }
  const source = options.image ?? registryImages[options.language ?? ''] ?? wanted
  if (await imageExists(docker, source)) return source
  if (!options.pullApproved) {
    throw new ExecutionResourceError('docker_image_pull_approval_required', `Pulling ${source} needs the operator's approval.`, {
      image: source,
      profile: options.profile
    })
  }
  try {
    await pullImage(docker, source, options.onProgress)
  } catch (error) {
    throw new ExecutionResourceError('docker_image_pull_failed', `Pulling ${source} failed: ${(error as Error).message}`, { image: source })
  }
  return source
}

async function pullImage(docker: Docker, image: string, onProgress?: (progress: ImageProgress) => void): Promise<void> {
  const stream = await docker.pull(image)
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (event: { status?: string; progressDetail?: { current?: number; total?: number } }) => {
        const { current, total } = event.progressDetail ?? {}
        onProgress?.({ image, stage: event.status ?? 'pulling', percent: current && total ? Math.round((current / total) * 100) : undefined })
      }
    )
  })
}

/** The images Airlock made or uses (labelled `airlock.managed`). */
export async function listAirlockImages(docker: Docker): Promise<ImageSummary[]> {
  const images = await docker.listImages({ filters: { label: [`${labels.managed}=true`] } })
  return images
    .map((image) => ({ ...image, tags: (image.RepoTags ?? []).filter((tag) => tag !== '<none>:<none>') }))
    .filter((image) => image.tags.length > 0)
    .map((image) => ({
      id: image.Id.replace(/^sha256:/, '').slice(0, 12),
      tags: image.tags,
      languages: (image.Labels?.[labels.languages] ?? '').split(',').filter(Boolean),
      toolchains: Object.fromEntries(
        Object.entries(image.Labels ?? {})
          .filter(([key]) => key.startsWith('airlock.toolchain.'))
          .map(([key, version]) => [key.slice('airlock.toolchain.'.length), version])
      ),
      sizeBytes: image.Size,
      created: new Date(image.Created * 1000).toISOString()
    }))
}
