import { createHash } from 'node:crypto'
import Docker from 'dockerode'

/** Labels on everything Airlock creates, so a restart can find and remove leftovers. */
export const labels = {
  managed: 'airlock.managed',
  home: 'airlock.home',
  owner: 'airlock.owner',
  profile: 'airlock.profile',
  language: 'airlock.language',
  languages: 'airlock.languages'
} as const

/**
 * A dockerode client. With no options it follows the environment like the docker CLI does
 * (`DOCKER_HOST` as unix://, tcp:// with `DOCKER_TLS_VERIFY`/`DOCKER_CERT_PATH`, or ssh://).
 */
export function createDockerClient(options?: Docker.DockerOptions): Docker {
  return new Docker(options)
}

/**
 * True when the engine is reached over the network (`tcp://`, `ssh://`): it shares no paths with
 * this host, so nothing is bound from here and code travels over the archive API (`EngineTransfer`).
 * A unix socket or named pipe is a local engine. A tcp engine on this very machine counts as remote:
 * assuming shared paths is the one mistake that must not be made.
 */
export function isRemoteEngine(docker: Docker): boolean {
  return !(docker.modem as { socketPath?: unknown }).socketPath
}

/** Whether the engine answers: its version, or why not and what to do. */
export type EngineCheck = { ok: true; version: string; apiVersion: string } | { ok: false; reason: string }

/** Asks the engine for its version (a quick ping); explains an unreachable one. */
export async function checkEngine(docker: Docker): Promise<EngineCheck> {
  try {
    const version = await docker.version()
    return { ok: true, version: version.Version, apiVersion: version.ApiVersion }
  } catch (error) {
    const where = process.env.DOCKER_HOST ?? '/var/run/docker.sock'
    return {
      ok: false,
      reason: `the Docker engine at ${where} is not reachable (${(error as Error).message}). Start it (sudo systemctl start docker, or Docker Desktop), or set DOCKER_HOST`
    }
  }
}

/** The label value that ties containers to one Airlock home (several homes can share an engine). */
export function homeLabel(home: string): string {
  return createHash('sha256').update(home).digest('hex').slice(0, 16)
}

/** Removes every container a crashed run of this home left behind; returns their ids. */
export async function sweepLeftoverContainers(docker: Docker, home: string): Promise<string[]> {
  const leftovers = await docker.listContainers({ all: true, filters: { label: [`${labels.managed}=true`, `${labels.home}=${homeLabel(home)}`] } })
  // v: the anonymous volumes a remote engine's containers hold their execution areas in go too.
  await Promise.all(
    leftovers.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined)
    )
  )
  return leftovers.map((c) => c.Id)
}
