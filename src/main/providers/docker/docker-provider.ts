import type Docker from 'dockerode'
import {
  ExecutionResourceError,
  type ExecutionResourceProvider,
  type ProviderProbe,
  type ResourceHandle,
  type ResourceRequirement,
  type ResourceStatus
} from '../../core'
import { systemPath } from '../process/run-limits'
import { realRoots } from '../process/workspace-paths'
import { ContainerRunner } from './container-runner'
import { containerIsolation, dockerConfigSchema, parseExtraArgs, runtimeProfiles, type DockerConfig, type RuntimeProfile } from './docker-config'
import { checkEngine, createDockerClient, homeLabel, labels } from './docker-engine'
import { airlockImage, imageExists, listAirlockImages, resolveImage, type ImageProgress, type ImageSummary } from './docker-images'
import { containerSeccompProfile } from './seccomp-profile'
import { invalidConfig } from '../process/provider-helpers'

/** Defaults for limits the policy does not set (SPEC §6.1 agent defaults). */
const defaultLimits = { cpuSeconds: 60, memoryMb: 1024, pids: 256 }

/** What the docker provider is built with. */
export type DockerProviderOptions = {
  home: string
  docker?: Docker
  /** Pull and provisioning progress (the console shows a progress bar). */
  onImageProgress?: (progress: ImageProgress) => void
}

/**
 * `docker` (SPEC §4): a warm container per (agent session, runtime profile) through dockerode,
 * created on ensure, reused while healthy, removed on release; commands run with exec. Hardened:
 * all capabilities dropped, no-new-privileges, a seccomp profile with the sandbox deny list, pids/cpu/memory
 * limits, no network unless the policy allows it, read-only root with a /tmp tmpfs, the image's
 * unprivileged user; labelled `airlock.*` so a restart removes leftovers.
 */
export class DockerProvider implements ExecutionResourceProvider {
  readonly providerId = 'docker'
  readonly supportedKinds = ['code_execution', 'docker', 'bash'] as const
  private readonly docker: Docker

  constructor(private readonly options: DockerProviderOptions) {
    this.docker = options.docker ?? createDockerClient()
  }

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const parsed = dockerConfigSchema.safeParse(requirement.config ?? {})
    if (!parsed.success) return invalidConfig('docker', parsed.error)
    let effect
    try {
      effect = parseExtraArgs(parsed.data.extraArgs ?? [])
    } catch (error) {
      return { available: false, reason: (error as Error).message }
    }
    const engine = await checkEngine(this.docker)
    if (!engine.ok) return { available: false, reason: engine.reason }
    const language = languageOf(requirement, parsed.data)
    const image = parsed.data.image ?? (language ? airlockImage(language) : undefined)
    const present = image ? await imageExists(this.docker, image) : false
    // Without a language asked for, report what the provisioned images offer.
    const provisioned = language ? [] : await listAirlockImages(this.docker)
    return {
      available: true,
      capabilities: {
        isolation: containerIsolation(effect, policy.networkMode === 'full' ? 'full' : 'none'),
        languages: language ? [language] : [...new Set(provisioned.flatMap((i) => i.languages))],
        ...(provisioned.length ? { toolchains: toolchainsOf(provisioned) } : {}),
        image,
        imagePresent: present,
        profile: profileOf(parsed.data),
        engine: { version: engine.version, apiVersion: engine.apiVersion }
      },
      diagnostics: [`docker engine ${engine.version}`, ...(image && !present ? [`image ${image} is not on this engine yet`] : [])]
    }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = dockerConfigSchema.parse(requirement.config ?? {})
    const effect = parseExtraArgs(config.extraArgs ?? [])
    const engine = await checkEngine(this.docker)
    if (!engine.ok) throw new ExecutionResourceError('docker_unavailable', engine.reason, { providerId: this.providerId })
    const profile = profileOf(config)
    const language = languageOf(requirement, config)
    const image = await resolveImage(this.docker, { language, image: config.image, profile, pullApproved: config.pullApproved, onProgress: this.options.onImageProgress })
    const imageLabels = (await this.docker.getImage(image).inspect()).Config?.Labels ?? {}
    const user = parseUser(imageLabels[labels.user])
    const roots = realRoots(policy.workspaceRoots)
    const limits = { ...defaultLimits, ...policy.limits }
    const network = policy.networkMode === 'full' ? 'full' : 'none'
    const hardening = ['no-new-privileges:true', `seccomp=${containerSeccompProfile()}`]
    const container = await this.docker.createContainer({
      Image: image,
      Cmd: ['sleep', 'infinity'],
      WorkingDir: roots[0],
      Labels: {
        [labels.managed]: 'true',
        [labels.home]: homeLabel(this.options.home),
        [labels.owner]: requirement.ownerId ?? '',
        [labels.profile]: profile,
        ...(language ? { [labels.language]: language } : {})
      },
      HostConfig: {
        CapDrop: ['ALL'],
        SecurityOpt: hardening,
        PidsLimit: limits.pids,
        Memory: Math.round(limits.memoryMb * 1024 * 1024),
        MemorySwap: Math.round(limits.memoryMb * 1024 * 1024),
        NanoCpus: 1_000_000_000,
        NetworkMode: network === 'full' ? 'bridge' : 'none',
        ReadonlyRootfs: true,
        Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=512m', '/run': 'rw,nosuid,nodev,size=16m' },
        Binds: roots.map((root) => `${root}:${root}:rw`),
        Init: true,
        Ulimits: [{ Name: 'cpu', Soft: limits.cpuSeconds, Hard: limits.cpuSeconds + 1 }],
        ...effect.hostConfig,
        ...(effect.hostConfig.Binds ? { Binds: [...roots.map((root) => `${root}:${root}:rw`), ...(effect.hostConfig.Binds as string[])] } : {}),
        ...(effect.hostConfig.SecurityOpt ? { SecurityOpt: [...hardening.filter((opt) => !effect.weakened.syscallsRestricted || !opt.startsWith('seccomp=')), ...(effect.hostConfig.SecurityOpt as string[])] } : {})
      }
    })
    try {
      await container.start()
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined)
      throw error
    }
    const runner = new ContainerRunner(this.docker, container, roots, policy, user, { PATH: systemPath, HOME: '/tmp', LANG: 'C.UTF-8', TERM: 'dumb' })
    return {
      resource: runner,
      meta: { containerId: container.id, image, profile, isolation: containerIsolation(effect, network), installDependencies: runtimeProfiles[profile].installDependencies }
    }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    const runner = handle.resource as ContainerRunner
    if (!runner.isUsable()) return 'unhealthy'
    try {
      return (await runner.container.inspect()).State.Running ? 'ready' : 'unhealthy'
    } catch {
      return 'unhealthy'
    }
  }

  async release(handle: ResourceHandle): Promise<void> {
    const runner = handle.resource as ContainerRunner
    runner.close()
    try {
      await runner.container.remove({ force: true })
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error
    }
  }
}

/** Toolchain versions the provisioned images recorded when they were built. */
function toolchainsOf(images: ImageSummary[]): Record<string, { available: boolean; version?: string }> {
  const toolchains: Record<string, { available: boolean; version?: string }> = {}
  for (const image of images) {
    for (const language of image.languages) toolchains[language] ??= { available: true }
    for (const [name, version] of Object.entries(image.toolchains)) toolchains[name] = { available: true, version }
  }
  return toolchains
}

function profileOf(config: DockerConfig): RuntimeProfile {
  return config.profile ?? 'strict'
}

/** The language to run: configured, else the one the requirement asks for; a `bash` handle runs the bash image. */
function languageOf(requirement: ResourceRequirement, config: DockerConfig): string | undefined {
  const asked = (requirement.requiredCapabilities as { languages?: unknown; language?: unknown } | undefined) ?? {}
  const fromRequirement = Array.isArray(asked.languages) ? asked.languages[0] : asked.language
  return config.language ?? (typeof fromRequirement === 'string' ? fromRequirement : requirement.kind === 'bash' ? 'bash' : undefined)
}

function parseUser(label: string | undefined): { uid: number; gid: number } | undefined {
  const match = /^(\d+):(\d+)$/.exec(label ?? '')
  return match && match[1] !== '0' ? { uid: Number(match[1]), gid: Number(match[2]) } : undefined
}
