import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { labels } from '../../src/main/providers/docker/docker-engine'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { openEgressStage, type EgressStage } from '../support/egress-stage'

// Attacks on a proxied container's way out (SPEC §6.5, docker): the session's container keeps
// network mode `none` and a bridge sidecar shares its network namespace. Code in the container
// tries to reach the egress socket, to see or signal the bridge, to take over its port, to reach
// the host through any interface, and to reach the bridge's container as root. Every test asserts
// the secure outcome; only loopback servers of this test are ever contacted.

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

describe.skipIf(skip !== undefined)(`attack: a proxied container's egress bridge${skip ? ` (skipped: ${skip})` : ''}`, { timeout: 90_000 }, () => {
  let stage: EgressStage
  const shell = (command: string) => stage.run('intruder', command)

  beforeAll(async () => {
    await ensureTestImages(docker)
    stage = await openEgressStage({
      prefix: 'airlock-attack-bridge-',
      pinned: ['pkgs.test'],
      agents: { intruder: { capabilities: ['shell', 'python'], providers: ['docker'], network: 'proxy', ask: 'never' } }
    })
  }, 600_000)

  afterAll(async () => stage?.close(), 60_000)

  it('the egress socket is nowhere in the container, and no unix socket of the host answers', async () => {
    const found = await shell(`find / -xdev -type s 2>/dev/null; ls -d /run/airlock-egress 2>&1; echo done`)
    expect(found.data.stdout).toMatch(/No such file or directory\ndone\n$/)
    expect(found.data.stdout).not.toMatch(/proxy\.sock/)
  })

  it('the bridge process cannot be seen or signalled from the container (its own pid namespace)', async () => {
    // In the shell's own container, the one whose bridge the next command uses.
    const hunt = await shell(
      `python3 - <<'PY'\n${[
        'import os, signal',
        'seen = [open(f"/proc/{p}/cmdline", "rb").read() for p in os.listdir("/proc") if p.isdigit()]',
        // Spelled in two halves: this very script's text is in its shell's command line.
        'print(sum(b"airlock" + b"-egress/proxy" in c for c in seen))',
        'for pid in range(2, 1 << 16):',
        '    if pid != os.getpid():',
        '        try: os.kill(pid, signal.SIGKILL)',
        '        except OSError: pass',
        'print("killed")'
      ].join('\n')}\nPY`
    )
    expect(hunt.data.stdout).toBe('0\nkilled\n')
    // The bridge still carries the next run's connection (it was neither found nor killed).
    const after = await shell(
      `python3 -c "import socket; s = socket.create_connection(('127.0.0.1', 3128), 5); s.sendall(b'CONNECT pkgs.test:1 HTTP/1.1\\r\\n\\r\\n'); print(s.recv(12).decode())"`
    )
    expect(after.data.stdout).toBe('HTTP/1.1 403\n')
  })

  it('the bridge port cannot be taken over, and only loopback exists', async () => {
    const grab = await shell(`python3 - <<'PY'
import socket, os
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(('127.0.0.1', 3128)); print('bound')
except OSError as e:
    print('refused', e.errno)
print(sorted(os.listdir('/sys/class/net')))
PY`)
    expect(grab.data.stdout).toBe(`refused 98\n['lo']\n`)
  })

  it('the bridge container holds no privilege: unprivileged uid, no capabilities, read-only root, its socket bound read-only', async () => {
    const owned = await docker.listContainers({ all: true, filters: { label: [`${labels.owner}=${stage.sessions.intruder}`] } })
    const bridges = (await Promise.all(owned.map((c) => docker.getContainer(c.Id).inspect()))).filter((c) => c.HostConfig.NetworkMode?.startsWith('container:'))
    expect(bridges.length).toBeGreaterThan(0)
    for (const bridge of bridges) {
      expect(bridge.Config.User).not.toMatch(/^0(:|$)/)
      expect(bridge.HostConfig.CapDrop).toEqual(['ALL'])
      expect(bridge.HostConfig.Privileged).toBe(false)
      expect(bridge.HostConfig.ReadonlyRootfs).toBe(true)
      expect(bridge.HostConfig.SecurityOpt).toEqual(expect.arrayContaining(['no-new-privileges:true', expect.stringMatching(/^seccomp=/)]))
      expect(bridge.HostConfig.Binds).toEqual([expect.stringMatching(/:\/run\/airlock-egress:ro$/)])
      expect(bridge.Mounts.every((mount) => mount.RW === false)).toBe(true)
    }
  })
})
