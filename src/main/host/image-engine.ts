import type Docker from 'dockerode'
import type { ImageEngine } from '../console/image-provisioning'
import { airlockImage, checkEngine, createDockerClient, languagePackages, listAirlockImages, provisionImages } from '../providers'

/** The docker provider's engine as the console's `ImageEngine` port (the one place the two meet); the default engine when none is given. */
export function dockerImageEngine(docker: Docker = createDockerClient()): ImageEngine {
  return {
    languages: Object.keys(languagePackages),
    imageOf: (language, tag) => airlockImage(language).replace(/:latest$/, `:${tag}`),
    check: () => checkEngine(docker),
    list: () => listAirlockImages(docker),
    provision: ({ language, ...options }) => provisionImages({ docker, languages: [language], ...options })
  }
}
