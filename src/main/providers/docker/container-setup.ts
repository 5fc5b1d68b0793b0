import type Docker from 'dockerode'
import { ExecutionResourceError, type SandboxIdentity } from '../../core'
import { accountingFor, type ContainerAccounting } from './container-accounting'
import { runHelper } from './container-exec'
import { containerBaseEnv, hardenedHostConfig, keeperUser, runUser, type ContainerLimits } from './container-spec'
import type { ExtraArgsEffect } from './docker-config'
import { DockerProviderError } from './docker-errors'
import { assertSameDirectories, identityProbeArgv, type MountedRoot } from './mounted-roots'
import type { WorkspaceMounts } from './workspace-mounts'

/** What a session's container is made of. */
export type ContainerPlan = {
  image: string
  labels: Record<string, string>
  roots: MountedRoot[]
  identity: SandboxIdentity
  limits: ContainerLimits
  network: 'none' | 'full'
  effect: ExtraArgsEffect
  /** Protected and hidden entries of the workspaces bound whole (local engines only). */
  mounts?: WorkspaceMounts
  /** A remote engine: each root is an empty volume in the container (filled per run over the API), nothing is bound from this host. */
  remote?: boolean
}

/**
 * Creates and starts a session's container: hardened, idle under its own unprivileged uid (the
 * keeper), the opened roots bound at their paths. Before anything runs in it, the container must
 * see at each root the very directory that was opened and checked (device and inode); otherwise
 * it is removed and `docker.mount_mismatch` thrown. On a remote engine nothing of this host is
 * bound: each root is an anonymous volume at the same path (removed with the container).
 */
export async function startSessionContainer(docker: Docker, plan: ContainerPlan): Promise<{ container: Docker.Container; accounting: ContainerAccounting }> {
  let container: Docker.Container
  const extra = plan.remote ? undefined : plan.mounts?.hostConfig()
  try {
    container = await docker.createContainer({
      Image: plan.image,
      Cmd: ['sleep', 'infinity'],
      User: keeperUser(plan.identity),
      WorkingDir: '/',
      Env: Object.entries(containerBaseEnv).map(([k, v]) => `${k}=${v}`),
      Labels: plan.labels,
      HostConfig: {
        ...hardenedHostConfig({
          limits: plan.limits,
          network: plan.network,
          binds: plan.remote ? [] : [...plan.roots.map((root) => `${root.path}:${root.path}:rw`), ...(extra?.binds ?? [])],
          effect: plan.effect
        }),
        ...(plan.remote
          ? { Mounts: plan.roots.map((root) => ({ Type: 'volume' as const, Source: '', Target: root.path, ReadOnly: false })) }
          : extra?.mounts.length
            ? { Mounts: extra.mounts }
            : {})
      }
    })
  } catch (error) {
    throw new ExecutionResourceError(
      'docker_unavailable',
      `The engine refused to create the container: ${(error as Error).message}`,
      { image: plan.image },
      { cause: error }
    )
  }
  try {
    await container.start()
    if (!plan.remote) {
      const probe = await runHelper(docker, container, [...identityProbeArgv(plan.roots), ...(plan.mounts?.probePaths() ?? [])], runUser(plan.identity))
      assertSameDirectories(plan.roots, probe)
      plan.mounts?.assertMounted(probe.stdout.trim().split('\n').slice(plan.roots.length))
    }
    return { container, accounting: await accountingFor(container, { local: !plan.remote }) }
  } catch (error) {
    await container.remove({ force: true, v: true }).catch(() => undefined)
    if (error instanceof DockerProviderError) throw error
    throw new ExecutionResourceError(
      'docker_unavailable',
      `The container could not start: ${(error as Error).message}`,
      { image: plan.image },
      { cause: error }
    )
  }
}
