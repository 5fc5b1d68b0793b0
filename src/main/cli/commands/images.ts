import { join } from 'node:path'
import { resolveHome } from '../../host/paths'
import { dockerImageEngine } from '../../host/image-engine'
import { defineCommand } from '../command'
import { CliError, UsageError } from '../cli-error'

/** `airlock images list|provision`: prepare images before agents need them (SPEC §8.1). */
export const imagesCommand = defineCommand({
  name: 'images',
  usage: 'airlock images list [--json] | airlock images provision <language> [--offline] [--rootfs FILE.tar] [--home DIR]',
  options: { offline: 'flag', rootfs: 'text' },
  async run({ options, positionals }, io) {
    const [action, language, ...rest] = positionals
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
    if (action !== 'list' && action !== 'provision') throw new UsageError('images takes list or provision <language>')
    if (action === 'list' && language) throw new UsageError('images list takes no language')
    if (action === 'provision' && !language) throw new UsageError('images provision needs a language')
    const images = dockerImageEngine()
    if (language && !images.languages.includes(language)) throw new UsageError(`unknown language ${language} (known: ${images.languages.join(', ')})`)
    const engine = await images.check()
    if (!engine.ok) throw new CliError('engine_unavailable', engine.reason)
    if (action === 'list') {
      const listed = await images.list()
      if (options.json) io.out(JSON.stringify(listed, null, 2))
      else if (listed.length === 0) io.out('No Airlock images yet. Provision one: airlock images provision python --offline')
      else
        for (const image of listed)
          io.out(`${image.tags.join(', ') || image.id}  ${image.languages.join(',')}  ${Math.round(image.sizeBytes / 1e6)} MB  ${image.created}`)
      return 0
    }
    if (!language) throw new UsageError('images provision needs a language')
    const progress = ({ stage, percent }: { stage: string; percent?: number }) =>
      io.err(`provisioning ${language}: ${stage}${percent === undefined ? '' : ` (${percent}%)`}`)
    if (options.offline || options.rootfs) {
      const home = resolveHome(options.home)
      const tags = await images.provision({ language, workDir: join(home, 'images'), fromRegistry: false, rootfsTarball: options.rootfs, onProgress: progress })
      io.out(tags.join('\n'))
      return 0
    }
    try {
      const tags = await images.provision({ language, workDir: join(resolveHome(options.home), 'images'), fromRegistry: true, onProgress: progress })
      io.out(tags.join('\n'))
      return 0
    } catch (error) {
      throw new CliError(
        'image_unavailable',
        `${(error as Error).message} (no registry reachable? build it here instead: airlock images provision ${language} --offline)`,
        { cause: error }
      )
    }
  }
})
