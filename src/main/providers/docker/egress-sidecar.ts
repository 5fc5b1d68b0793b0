import type Docker from 'dockerode'
import type { EgressEndpoint, SandboxIdentity } from '../../core'
import { bridgeReadyLine, egressMount, standaloneBridgeArgv } from '../runner/egress-bridge'
import { airlockImage } from './docker-images'
import { DockerProviderError } from './docker-errors'
import { containerSeccompProfile } from './seccomp-profile'

/** The image the bridge runs from: Airlock's provisioned node image (the bridge is plain node). */
export const bridgeImage = airlockImage('nodejs')

/** How long the bridge may take to listen. */
const readyTimeoutMs = 20_000

/**
 * The way out of a proxied container (`network: "proxy"`, SPEC §6.5). The session's container
 * keeps network mode `none` (only loopback); a small sidecar container joins its network namespace
 * and runs the egress bridge there: `127.0.0.1:3128` inside carried to the endpoint's unix socket,
 * which is bound (read-only) into the sidecar only. Code in the session's container never sees the
 * socket, has no route anywhere, and reaches nothing but the bridge's port.
 *
 * Decision: not a Docker `internal` network. Such a network gives the container an address on a
 * host bridge and with it every host port listening on all interfaces (an internal network only
 * stops forwarding past the host); the shared empty namespace has nothing but loopback. The bridge
 * needs node, so proxied runs need the provisioned `airlock/nodejs` image on the engine (the probe
 * says so when it is missing), and a local engine (the socket is bound from this machine).
 *
 * The sidecar runs as the sandbox identity (the socket is that identity's, mode 0600), in its own
 * pid namespace (the session's runs cannot see or signal it), with every capability dropped,
 * no-new-privileges, the allowlist seccomp profile, a read-only root and small limits.
 */
export async function startEgressSidecar(
  docker: Docker,
  options: { session: Docker.Container; endpoint: EgressEndpoint; identity: SandboxIdentity; labels: Record<string, string> }
): Promise<Docker.Container> {
  let sidecar: Docker.Container
  try {
    sidecar = await docker.createContainer({
      Image: bridgeImage,
      Cmd: standaloneBridgeArgv('node', options.endpoint.socketName),
      User: `${options.identity.uid}:${options.identity.gid}`,
      WorkingDir: '/',
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin', 'LANG=C.UTF-8'],
      Labels: options.labels,
      HostConfig: {
        NetworkMode: `container:${options.session.id}`,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges:true', `seccomp=${containerSeccompProfile()}`],
        ReadonlyRootfs: true,
        PidsLimit: 16,
        Memory: 128 * 1024 * 1024,
        MemorySwap: 128 * 1024 * 1024,
        NanoCpus: 500_000_000,
        Binds: [`${options.endpoint.socketDir}:${egressMount}:ro`]
      }
    })
  } catch (error) {
    throw new DockerProviderError(
      'docker.egress_unavailable',
      `The engine refused to create the egress bridge: ${(error as Error).message}`,
      { image: bridgeImage },
      { cause: error }
    )
  }
  try {
    await sidecar.start()
    await waitForReady(sidecar)
    return sidecar
  } catch (error) {
    await sidecar.remove({ force: true }).catch(() => undefined)
    if (error instanceof DockerProviderError) throw error
    throw new DockerProviderError(
      'docker.egress_unavailable',
      `The egress bridge could not start: ${(error as Error).message}`,
      { image: bridgeImage },
      { cause: error }
    )
  }
}

/** Waits until the bridge says it listens; its own words (stderr) if it ends first. */
async function waitForReady(sidecar: Docker.Container): Promise<void> {
  const deadline = Date.now() + readyTimeoutMs
  for (;;) {
    const output = (await sidecar.logs({ stdout: true, stderr: true, follow: false })).toString('utf8')
    if (output.includes(bridgeReadyLine)) return
    const state = (await sidecar.inspect()).State
    if (!state.Running)
      throw new DockerProviderError('docker.egress_unavailable', `The egress bridge ended (exit ${state.ExitCode}): ${printable(output)}`, {
        exitCode: state.ExitCode
      })
    if (Date.now() > deadline)
      throw new DockerProviderError('docker.egress_unavailable', `The egress bridge did not listen within ${readyTimeoutMs / 1000} s.`, {})
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Log frames carry binary headers (no TTY): only the text, shortened. */
function printable(output: string): string {
  return (
    output
      // eslint-disable-next-line no-control-regex
      .replace(/[\x00-\x08\x0e-\x1f]/g, '')
      .trim()
      .slice(0, 400)
  )
}
