// ICMP ping sockets (SOCK_DGRAM + IPPROTO_ICMP / IPPROTO_ICMPV6) in the docker provider's
// containers, on every network a container can have. The engine opens them to every group by
// default (it sets net.ipv4.ping_group_range to "0 2147483647"); a bubblewrap sandbox's fresh
// network namespace keeps the kernel's "1 0". With the network `full` they are a way out the
// policy never sees (ICMP to any host, echo payloads included); with `none` they reach only the
// loopback, yet the socket type must still be refused. The network-`none` case is also in the
// docker escape corpus (docker-escape-cases.ts) and the shared one (escape-corpus-kernel-cases.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExecutionResourceManager, type ProgramRunner } from '../../src/main/core'
import { checkEngine, createDockerClient } from '../../src/main/providers/docker/docker-engine'
import { DockerProvider } from '../../src/main/providers/docker/docker-provider'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { pingSockets } from './docker-escape-cases'
import { makeEscapeStage, type EscapeStage } from './escape-stage'

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

describe.skipIf(skip !== undefined)(`docker: ping sockets${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let stage: EscapeStage
  let manager: ExecutionResourceManager

  beforeAll(async () => {
    await ensureTestImages(docker)
    stage = makeEscapeStage('airlock-docker-ping-')
    manager = new ExecutionResourceManager().registerProvider(new DockerProvider({ home: `${stage.dir.path}/home`, docker }))
  }, 600_000)
  afterAll(async () => {
    await manager?.releaseAll()
    stage?.dir.remove()
  })

  it.each(['full', 'none'] as const)(
    'with network %s a container cannot open an IPv4 or IPv6 ping socket',
    async (networkMode) => {
      const handle = await manager.ensure({
        kind: 'code_execution',
        providerId: 'docker',
        scope: 'session',
        ownerId: `ping-${networkMode}`,
        requiredCapabilities: { languages: ['python'] },
        policy: { workspaceRoots: [stage.workspace], timeoutSeconds: 20, networkMode }
      })
      try {
        expect(handle.meta.isolation).toMatchObject({ networkMode })
        const result = await (handle.resource as ProgramRunner).run({
          command: `${pingSockets}; cat /proc/sys/net/ipv4/ping_group_range`,
          cwd: stage.workspace
        })
        expect(result.stdout).toBe('ping4 EACCES\nping6 EACCES\n1\t0\n')
      } finally {
        await manager.release(handle)
      }
    },
    120_000
  )
})
