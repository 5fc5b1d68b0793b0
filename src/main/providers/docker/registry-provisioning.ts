import type Docker from 'dockerode'
import { airlockImage, resolveImage, type ImageProgress } from './docker-images'
import { verifyImage } from './image-verification'

/**
 * Provisions from a registry (`airlock images provision <language>` without --offline): pulls the
 * language's registry image (the operator asked for it), runs its toolchain as the sandbox uid
 * the way containers will, and only then tags it as the Airlock image. One that fails the check
 * gets no Airlock tag; the error says why.
 */
export async function provisionFromRegistry(options: {
  docker: Docker
  languages: string[]
  tag?: string
  onProgress?: (progress: ImageProgress) => void
}): Promise<string[]> {
  const tags: string[] = []
  for (const language of options.languages) {
    const target = airlockImage(language).replace(/:latest$/, `:${options.tag ?? 'latest'}`)
    const image = await resolveImage(options.docker, { language, profile: 'developer', pullApproved: true, onProgress: options.onProgress })
    options.onProgress?.({ image: target, stage: 'checking the toolchains as the sandbox user', percent: 95 })
    await verifyImage(options.docker, image, [language])
    const [repo, tag] = target.split(':')
    if (image !== target) await options.docker.getImage(image).tag({ repo: repo!, tag: tag! })
    options.onProgress?.({ image: target, stage: 'done', percent: 100 })
    tags.push(target)
  }
  return tags
}
