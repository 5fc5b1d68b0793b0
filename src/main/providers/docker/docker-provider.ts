import type Docker from 'dockerode'
import {
  ExecutionResourceError,
  sandboxIdentity,
  type EgressEndpoint,
  type EgressPort,
  type ExecutionResourceProvider,
  type ProviderProbe,
  type ResourceHandle,
  type ResourceRequirement,
  type ResourceStatus
} from '../../core'
import { invalidConfig } from '../provider-helpers'
import { realRoots } from '../../core/sandbox/workspace-paths'
import { ContainerRunner } from './container-runner'
import { startSessionContainer } from './container-setup'
import { defaultLimits } from './container-spec'
import { containerIsolation, dockerConfigSchema, parseExtraArgs, runtimeProfiles, type DockerConfig, type RuntimeProfile } from './docker-config'
import { checkEngine, createDockerClient, homeLabel, isRemoteEngine, labels, sweepLeftoverContainers } from './docker-engine'
import { DockerProviderError } from './docker-errors'
import { bridgeImage, startEgressSidecar } from './egress-sidecar'
import { EngineTransfer } from './engine-transfer'
import { airlockImage, imageExists, listAirlockImages, resolveImage, type ImageProgress, type ImageSummary } from './docker-images'
import { closeRoots, isHostKeptAreas, openMountedRoots } from './mounted-roots'
import { WorkspaceMounts } from './workspace-mounts'

/** What the docker provider is built with. */
export type DockerProviderOptions = {
  home: string
  docker?: Docker
  /** Pull and provisioning progress (the console shows a progress bar). */
  onImageProgress?: (progress: ImageProgress) => void
  /** Airlock's egress proxy: what `network: "proxy"` goes through (without it such a policy is refused). */
  egress?: EgressPort
}

/** How each limit is enforced, as the probe reports it (SPEC §4.1: the probe says what is really enforced). */
const enforcedLimits = {
  cpuSeconds:
    "per run: CPU time of all the run's processes together (container cgroup, sampled every 250 ms, or every second through a remote engine); per process also as an rlimit",
  pids: 'cgroup (per container)',
  memory: 'cgroup (per container, no swap)'
}

/**
 * `docker` (SPEC §4): a warm container per (agent session, runtime profile) through dockerode,
 * created on ensure, reused while healthy, removed on release; programs run one at a time with
 * exec as the host's sandbox identity (`sandboxIdentity()`), while the idle init runs under a uid
 * of its own so a run can neither signal nor outlive into it. Hardened: all capabilities dropped, no-new-privileges, an
 * allowlist seccomp profile, pids/memory limits and a per-run CPU budget, no network unless the
 * policy allows it, read-only root with a /tmp tmpfs; labelled `airlock.*` so a restart removes leftovers.
 * Workspace grants: snapshot only (read_only/read_write are refused by the probe, see `grantRefusal`).
 *
 * A remote engine (`DOCKER_HOST=tcp://…` with TLS, or `ssh://…`; see `isRemoteEngine`) shares no
 * paths with this host: nothing is bound; each run's execution area is copied in and back over the
 * archive API (`EngineTransfer`). Decision: through a remote engine the provider runs code
 * (`code_execution`) only. A shell session or a docker handle works on the agent's whole workspace,
 * which would have to be mirrored both ways on every command (deletions included); the probe says
 * so and selection moves on to a provider on this machine (bubblewrap).
 *
 * `network: "proxy"`: the container keeps network mode `none` and a bridge sidecar in its network
 * namespace is its only way out, to the egress proxy (`egress-sidecar.ts`); local engines only.
 */
export class DockerProvider implements ExecutionResourceProvider {
  readonly providerId = 'docker'
  readonly supportedKinds = ['code_execution', 'docker', 'bash'] as const
  private readonly docker: Docker
  private readonly remote: boolean

  constructor(private readonly options: DockerProviderOptions) {
    this.docker = options.docker ?? createDockerClient()
    this.remote = isRemoteEngine(this.docker)
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
    const refusal = grantRefusal(requirement) ?? this.remoteRefusal(requirement) ?? this.proxyRefusal(policy, effect)
    if (refusal) return { available: false, reason: refusal }
    const engine = await checkEngine(this.docker)
    if (!engine.ok) return { available: false, reason: engine.reason }
    if (policy.networkMode === 'proxy' && !(await imageExists(this.docker, bridgeImage))) {
      return {
        available: false,
        reason: `network "proxy" in a container needs the ${bridgeImage} image for its egress bridge, which this engine does not have; provision it (airlock images provision nodejs --offline) or use bubblewrap`
      }
    }
    const language = languageOf(requirement, parsed.data)
    const image = parsed.data.image ?? (language ? airlockImage(language) : undefined)
    const present = image ? await imageExists(this.docker, image) : false
    // Without a language asked for, report what the provisioned images offer.
    const provisioned = language ? [] : await listAirlockImages(this.docker)
    const identity = sandboxIdentity()
    return {
      available: true,
      capabilities: {
        isolation: containerIsolation(effect, networkOf(policy)),
        languages: language ? [language] : [...new Set(provisioned.flatMap((i) => i.languages))],
        ...(provisioned.length ? { toolchains: toolchainsOf(provisioned) } : {}),
        image,
        imagePresent: present,
        profile: profileOf(parsed.data),
        workspaceGrants: ['snapshot'],
        limits: enforcedLimits,
        runsAs: { uid: identity.uid, gid: identity.gid },
        protectedPaths: this.remote ? 'not enforced (remote engine: no workspace is bound)' : 'read-only (mounted over themselves)',
        // Labelled entries above what a call may read: an empty read-only tmpfs or /dev/null over each.
        hidesPaths: !this.remote,
        engine: { version: engine.version, apiVersion: engine.apiVersion, remote: this.remote }
      },
      diagnostics: [
        `docker engine ${engine.version}${this.remote ? ' (remote: code and outputs are copied over the Docker API, nothing is bound from this machine)' : ''}`,
        `code runs as uid ${identity.uid}${identity.dedicated ? ' (the dedicated sandbox uid: Airlock runs as root)' : ''}`,
        // Fixed when the container is made; one that appears later (a run's `git init`) makes the next run's container a fresh one.
        'protected paths (git hooks and config, editor and agent settings, .envrc, shell rc files) are mounted read-only over themselves in a session container',
        ...(image && !present ? [`image ${image} is not on this engine yet`] : [])
      ]
    }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const parsed = dockerConfigSchema.safeParse(requirement.config ?? {})
    if (!parsed.success) throw new ExecutionResourceError('invalid_requirement', invalidConfig('docker', parsed.error).reason!, { providerId: this.providerId })
    const config = parsed.data
    const effect = parseExtraArgs(config.extraArgs ?? [])
    const refusal = grantRefusal(requirement)
    if (refusal) throw new DockerProviderError('docker.grant_unsupported', refusal, { mode: requirement.workspaceAccess?.mode })
    const remoteRefusal = this.remoteRefusal(requirement)
    if (remoteRefusal) throw new DockerProviderError('docker.remote_unsupported', remoteRefusal, { kind: requirement.kind })
    const proxy = this.proxyRefusal(policy, effect)
    if (proxy) throw new DockerProviderError('docker.egress_unavailable', proxy, { networkMode: policy.networkMode })
    const engine = await checkEngine(this.docker)
    if (!engine.ok) throw new ExecutionResourceError('docker_unavailable', engine.reason, { providerId: this.providerId })
    const profile = profileOf(config)
    const language = languageOf(requirement, config)
    const image = await resolveImage(this.docker, {
      language,
      image: config.image,
      profile,
      pullApproved: config.pullApproved,
      onProgress: this.options.onImageProgress
    })
    const identity = sandboxIdentity()
    const roots = openMountedRoots(realRoots(policy.workspaceRoots), identity)
    if (this.remote && !roots.every((root) => isHostKeptAreas(root.path))) {
      closeRoots(roots)
      throw new DockerProviderError(
        'docker.remote_unsupported',
        'Through a remote engine only execution areas travel; this requirement names other workspace roots.',
        { roots: roots.map((root) => root.path) }
      )
    }
    const limits = { ...defaultLimits, ...policy.limits }
    const network = networkOf(policy)
    const mounts = this.remote ? undefined : new WorkspaceMounts(roots, policy)
    const containerLabels = {
      [labels.managed]: 'true',
      [labels.home]: homeLabel(this.options.home),
      [labels.owner]: requirement.ownerId ?? '',
      [labels.profile]: profile,
      ...(language ? { [labels.language]: language } : {})
    }
    let egress: EgressEndpoint | undefined
    let session: Docker.Container | undefined
    try {
      // Windowed: the bridge outlives runs, which go one at a time; between runs nothing is admitted.
      if (network === 'proxy')
        egress = await this.options.egress!.open(
          { scope: requirement.scope, ownerId: requirement.ownerId, actionCallId: requirement.actionCallId },
          { attribution: 'window' }
        )
      const { container, accounting } = await startSessionContainer(this.docker, {
        image,
        identity,
        roots,
        limits,
        // `proxy`: no network of its own; the bridge sidecar joins its namespace.
        network: network === 'full' ? 'full' : 'none',
        effect,
        remote: this.remote,
        mounts,
        labels: containerLabels
      })
      session = container
      const bridge = egress ? await startEgressSidecar(this.docker, { session: container, endpoint: egress, identity, labels: containerLabels }) : undefined
      const transfer = this.remote ? new EngineTransfer(this.docker, container, identity) : undefined
      const runner = new ContainerRunner(this.docker, container, roots, policy, identity, accounting, limits.cpuSeconds, { transfer, egress, bridge, mounts })
      return {
        resource: runner,
        meta: {
          containerId: container.id,
          image,
          profile,
          runsAs: identity.uid,
          isolation: containerIsolation(effect, network),
          installDependencies: runtimeProfiles[profile].installDependencies,
          remoteEngine: this.remote,
          ...(bridge ? { egress: 'proxy', egressBridge: bridge.id } : {})
        }
      }
    } catch (error) {
      closeRoots(roots)
      await session?.remove({ force: true, v: true }).catch(() => undefined)
      await egress?.close()
      throw error
    }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    const runner = handle.resource as ContainerRunner
    // A protected or labelled entry that appeared (or went) since the container was made: the next run gets a fresh one that covers it.
    if (!runner.isUsable() || runner.extras.mounts?.changed()) return 'unhealthy'
    try {
      const bridge = runner.extras.bridge
      // A proxied container whose bridge ended has lost its way out: not reused.
      if (bridge && !(await bridge.inspect()).State.Running) return 'unhealthy'
      return (await runner.container.inspect()).State.Running ? 'ready' : 'unhealthy'
    } catch {
      return 'unhealthy'
    }
  }

  async release(handle: ResourceHandle): Promise<void> {
    const runner = handle.resource as ContainerRunner
    runner.close()
    // Each part goes whatever happens to the others; a container already gone is gone.
    const failures: { what: string; error: unknown }[] = []
    const gone = (what: string) => (error: { statusCode?: number }) => {
      if (error.statusCode !== 404) failures.push({ what, error })
    }
    // The bridge first: it holds the session container's network namespace.
    await runner.extras.bridge?.remove({ force: true }).catch(gone(`the egress bridge ${runner.extras.bridge.id}`))
    await runner.extras.egress?.close().catch(gone('the egress endpoint'))
    await runner.container.remove({ force: true, v: true }).catch(gone(`the container ${runner.container.id}`))
    const [first] = failures
    if (first) {
      throw new ExecutionResourceError(
        'release_failed',
        `${first.what} could not be removed: ${(first.error as Error).message}`,
        { containerId: runner.container.id },
        { cause: first.error }
      )
    }
  }

  /**
   * After a crash: removes every container labelled with this home (warm containers outlive the
   * process that made them; another Airlock home's containers are left alone). No engine, nothing to do.
   */
  async recover(): Promise<string[]> {
    if (!(await checkEngine(this.docker)).ok) return []
    return (await sweepLeftoverContainers(this.docker, this.options.home)).map((id) => `container ${id.slice(0, 12)}`)
  }

  /**
   * Why this provider cannot carry `network: "proxy"` here, if it cannot: no egress proxy in this
   * host, a remote engine (the egress socket lives on this machine), or extra arguments that put
   * the container on a network of their own.
   */
  private proxyRefusal(policy: { networkMode?: string }, effect: { network?: string }): string | undefined {
    if (policy.networkMode !== 'proxy') return undefined
    if (!this.options.egress) return 'network "proxy" needs Airlock\'s egress proxy, which this host does not run'
    if (this.remote) return 'network "proxy" needs a local Docker engine (the egress proxy\'s socket is on this machine); use bubblewrap'
    if (effect.network) return 'the configured extra arguments choose the container\'s network (--network host), which network "proxy" cannot go through'
    return undefined
  }

  /** Why a remote engine cannot serve this requirement (anything but code in execution areas), if it cannot. */
  private remoteRefusal(requirement: ResourceRequirement): string | undefined {
    if (!this.remote || requirement.kind === 'code_execution') return undefined
    return `the Docker engine is remote (${process.env.DOCKER_HOST ?? 'tcp'}): it runs code (run_code) only, copied over the Docker API; a ${requirement.kind} handle needs the workspace on this machine (use bubblewrap)`
  }
}

/** The network a policy gives a container (no mode: none). */
function networkOf(policy: { networkMode?: 'none' | 'proxy' | 'full' }): 'none' | 'proxy' | 'full' {
  return policy.networkMode ?? 'none'
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

/**
 * Why this provider cannot serve the requirement's workspace grant, if it cannot. Decision: the
 * container mounts only the execution areas (snapshot grants); binding the agent's workspace
 * read-only or read-write per call into a warm container shared by a session is not supported,
 * so the probe says so and selection moves on instead of failing at run time.
 */
function grantRefusal(requirement: ResourceRequirement): string | undefined {
  const mode = requirement.workspaceAccess?.mode
  if (mode === 'read_only' || mode === 'read_write') {
    return `the docker provider supports only snapshot workspace grants (asked: ${mode}); use snapshot, or a provider that binds the workspace (bubblewrap)`
  }
  return undefined
}
