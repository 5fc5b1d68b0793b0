import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkEngine, createDockerClient } from '../../src/main/providers'
import { labels } from '../../src/main/providers/docker/docker-engine'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { openEgressStage, probeWheel, type EgressStage } from '../support/egress-stage'

// Issue 14 on docker, through the real action path: an agent with `network: "proxy"` runs python
// (urllib, http.client's CONNECT tunnel, pip) in a real container whose network mode is `none`; a
// bridge sidecar in the container's network namespace is its only way out, to Airlock's egress
// proxy. The test's names are pinned to a loopback server, the only place traffic goes.

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

const fetch = (url: string) => `import urllib.request\nprint(urllib.request.urlopen(${JSON.stringify(url)}, timeout=30).read().decode(), end='')`

describe.skipIf(skip !== undefined)(`egress through the proxy on docker${skip ? ` (skipped: ${skip})` : ''}`, { timeout: 90_000 }, () => {
  let stage: EgressStage
  let port: number
  const py = (source: string) => stage.run('boxed', `python3 - 2>&1 <<'PY'\n${source}\nPY\necho "rc=$?"`)

  beforeAll(async () => {
    await ensureTestImages(docker)
    stage = await openEgressStage({
      prefix: 'airlock-egress-docker-',
      pinned: ['pkgs.test', 'blocked.test', 'asked.test'],
      agents: { boxed: { capabilities: ['shell', 'python'], providers: ['docker'], network: 'proxy', ask: 'on_risk' } }
    })
    port = stage.port
    stage.host.store.network.addRule({ agentId: 'boxed', decision: 'allow', host: 'pkgs.test' })
    stage.host.store.network.addRule({ agentId: null, decision: 'deny', host: 'blocked.test' })
  }, 600_000)

  afterAll(async () => stage?.close(), 60_000)

  it('an allowed domain works through the proxy: urllib (forwarded) and an http.client CONNECT tunnel, recorded per call', async () => {
    const plain = await stage.python('boxed', fetch(`http://pkgs.test:${port}/plain`))
    expect(plain.data).toMatchObject({ exitCode: 0, stdout: `hello from pkgs.test:${port}/plain\n` })
    expect(plain.lineage()).toEqual([expect.objectContaining({ kind: 'tcp', endpoint: `pkgs.test:${port}`, decision: 'allowed', address: '127.0.0.1' })])
    const tunnel = await py(
      `import http.client\nc = http.client.HTTPConnection('127.0.0.1', 3128, timeout=30)\nc.set_tunnel('pkgs.test', ${port})\nc.request('GET', '/tunnel')\nprint(c.getresponse().read().decode(), end='')`
    )
    expect(tunnel.data.stdout).toBe(`hello from pkgs.test:${port}/tunnel\nrc=0\n`)
    const [entry] = tunnel.lineage()
    expect(entry).toMatchObject({ endpoint: `pkgs.test:${port}`, decision: 'allowed' })
    expect(entry!.bytesDown).toBeGreaterThan(0)
  })

  it('pip downloads a package from an allowed index through the proxy', async () => {
    const pip = await stage.run(
      'boxed',
      `python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check --index-url http://pkgs.test:${port}/simple/ --trusted-host pkgs.test -d /tmp/dl airlock-probe==1.0 2>&1; echo "rc=$?"; ls /tmp/dl`
    )
    expect(pip.data.stdout, pip.data.stdout).toMatch(new RegExp(`rc=0\\n${probeWheel.replace(/\./g, '\\.')}\\n$`))
    expect(stage.seen).toContain(`GET pkgs.test:${port} /simple/airlock-probe/`)
  })

  it('a denied domain fails with a clear message and never reaches the server', async () => {
    const before = stage.seen.length
    const denied = await py(fetch(`http://blocked.test:${port}/x`))
    expect(denied.data.stdout).toMatch(/HTTP Error 403/)
    const body = await py(
      `import urllib.request, urllib.error\ntry:\n    urllib.request.urlopen('http://blocked.test:${port}/x')\nexcept urllib.error.HTTPError as e:\n    print(e.read().decode(), end='')`
    )
    expect(body.data.stdout).toMatch(/^Airlock egress: blocked\.test:\d+ is denied by deny blocked\.test \(global/)
    expect(stage.seen.length).toBe(before)
    expect(denied.lineage()).toEqual([expect.objectContaining({ endpoint: `blocked.test:${port}`, decision: 'denied' })])
  })

  it('an unknown domain under ask waits in the queue; approving lets the waiting connection through', async () => {
    const waiting = stage.python('boxed', fetch(`http://asked.test:${port}/asked`))
    await expect.poll(() => stage.networkItems('boxed').length, { timeout: 30_000 }).toBe(1)
    const [item] = stage.networkItems('boxed')
    expect(item!.summary).toBe(`boxed wants asked.test:${port}`)
    stage.host.approvals.decide({ id: item!.id, decision: 'approve' })
    expect((await waiting).data).toMatchObject({ exitCode: 0, stdout: `hello from asked.test:${port}/asked\n` })
  })

  it('a direct connection that ignores the proxy fails: the container has only loopback, and the socket is not in it', async () => {
    const before = stage.seen.length
    const direct = await py(
      `import socket\ns = socket.socket()\ns.settimeout(3)\nprint(s.connect_ex(('127.0.0.1', ${port})) != 0)\nimport os\nprint(sorted(os.listdir('/sys/class/net')), os.path.exists('/run/airlock-egress'))`
    )
    expect(direct.data.stdout).toBe(`True\n['lo'] False\nrc=0\n`)
    expect(stage.seen.length).toBe(before)
  })

  it.each(['169.254.169.254', '127.0.0.1', '0x7f000001'])('SSRF: %s is refused before any connection, without an explicit rule', async (target) => {
    const before = stage.seen.length
    const refused = await py(
      `import urllib.request, urllib.error\ntry:\n    urllib.request.urlopen('http://${target}:${port}/ssrf')\nexcept urllib.error.HTTPError as e:\n    print(e.read().decode(), end='')`
    )
    expect(refused.data.stdout).toMatch(/Airlock egress: .* address; Airlock connects there only when an allow rule names it exactly/)
    expect(stage.seen.length).toBe(before)
  })

  it('the session’s end removes its container, its bridge and the egress socket', async () => {
    const owned = async () =>
      Promise.all(
        (await docker.listContainers({ all: true, filters: { label: [`${labels.owner}=${stage.sessions.boxed}`] } })).map((c) =>
          docker.getContainer(c.Id).inspect()
        )
      )
    const containers = await owned()
    // Each warm container of the session (its shell's, its code runs') has one bridge in its network namespace.
    const bridges = containers.filter((c) => c.HostConfig.NetworkMode?.startsWith('container:'))
    const sessions = containers.filter((c) => !bridges.includes(c))
    expect(sessions.length).toBeGreaterThan(0)
    expect(sessions.every((c) => c.HostConfig.NetworkMode === 'none')).toBe(true)
    expect(bridges.map((c) => c.HostConfig.NetworkMode).sort()).toEqual(sessions.map((c) => `container:${c.Id}`).sort())
    const socketDirs = bridges.map((c) => c.HostConfig.Binds![0]!.split(':')[0]!)
    expect(socketDirs.every((dir) => existsSync(dir))).toBe(true)
    await stage.host.agents.sessions.end(stage.sessions.boxed!)
    await expect.poll(async () => (await owned()).length, { timeout: 30_000 }).toBe(0)
    expect(socketDirs.filter((dir) => existsSync(dir))).toEqual([])
  })
})
