// The host side of the escape corpus (escape-corpus-cases.ts): one real Airlock host per provider,
// and around it what an escape would touch, so that every case is judged on the host and not on the
// sandbox's word: a folder outside every workspace per case, another agent's workspace with a
// secret, a canary process per case, TCP/UDP/DNS listeners and an abstract unix socket that record
// who reached them, and a scan for the files an attack names after itself.
import { spawn } from 'node:child_process'
import { randomBytes, randomInt } from 'node:crypto'
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createSocket, type Socket as UdpSocket } from 'node:dgram'
import { createServer, type Server } from 'node:net'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import type { AgentLimits, AgentProfile } from '@shared/agents'
import type { HistoryDetail } from '@shared/ipc/history'
import { createHost, type Host } from '../../src/main/host'
import { sandboxIdentity, type ActionResult } from '../../src/main/core'
import { isAlive, survivorsOf } from '../support/processes'
import { makeTempDir } from '../support/temp-home'

/** The providers the corpus runs on: the three that claim isolation axes, and the one that claims none. */
export type CorpusProviderId = 'bubblewrap' | 'gvisor' | 'docker' | 'trusted_local'

/** What one case may use: its own agent, workspace, outside folder, canary and markers, and the shared host fixtures. */
export type CaseContext = {
  providerId: CorpusProviderId
  caseId: string
  agentId: string
  /** The attacking agent's workspace (its real path). */
  workspace: string
  home: string
  /** A host folder outside every workspace, owned by the sandbox uid (only the boundary keeps a sandbox out). */
  outside: string
  /** The content of `outside/secret.txt`. */
  outsideSecret: string
  /** Another agent's workspace, holding `notes.txt` with `victimSecret`. */
  victimWorkspace: string
  victimSecret: string
  /** A host process of the sandbox uid (sleep), whose command line holds `marker` and environment `canarySecret`. */
  canary: { pid: number; marker: string; secret: string; alive(): boolean }
  /** A sleep duration unique to this case, so what the case starts can be found on the host by command line. */
  sleepMarker: string
  /** Host listeners: TCP on every address, UDP on every address, a DNS resolver on loopback, an abstract unix socket. */
  net: { hostIp: string; tcpPort: number; udpPort: number; dnsPort: number; abstractName: string }
  /** A secret Airlock's own process holds in its environment. */
  hostEnvSecret: string
  /** Runs one tool call as the attacking agent, through the real action path. */
  call(tool: string, input: unknown): Promise<ActionResult>
  /** The history record of a call, as the console shows it. */
  detail(callId: string): HistoryDetail
}

/** The agent profile of every case: the provider pinned, nothing asks (the denylist still applies), small limits. */
export const corpusLimits: AgentLimits = { timeoutSeconds: 15, cpuSeconds: 10, memoryMb: 256, pids: 64, diskMb: 64, outputBytes: 64 * 1024 }

/** The stage of one provider: its host, fixtures, and per-case contexts. */
export type CorpusStage = Awaited<ReturnType<typeof openCorpusStage>>

const hostEnvSecret = `airlock-corpus-env-${randomBytes(6).toString('hex')}`
// Set before any host starts: an escape that reads Airlock's environment finds it.
process.env.AIRLOCK_CORPUS_HOST_SECRET = hostEnvSecret

/** Opens a host (fresh home) for one provider and the fixtures around it; a stage that fails to open leaves nothing behind. */
export async function openCorpusStage(providerId: CorpusProviderId) {
  const dir = makeTempDir(`airlock-corpus-${providerId.replace('_', '-')}-`, { outsideTmp: true })
  const host: Host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
  try {
    return await stageAround(providerId, dir, host)
  } catch (error) {
    await host.dispose()
    dir.remove()
    throw error
  }
}

async function stageAround(providerId: CorpusProviderId, dir: ReturnType<typeof makeTempDir>, host: Host) {
  await host.recovered
  // The corpus attacks the sandboxes and the file tools. Its races call a file tool hundreds of times
  // while a racer swaps a folder ~30 000 times a second; with checkpoints each of those calls would
  // walk a workspace whose watch is flooded (a whole walk every call) and the race would go by
  // unobserved. Checkpoints under the same races are attacked in attack-checkpoints.test.ts.
  host.settings.set('checkpoints.enabled', false)
  const identity = sandboxIdentity()
  const token = randomBytes(4).toString('hex')
  const canaries: { pid: number; kill(): void }[] = []
  // Sleep markers `<7000 + case number>.<stage number>`: unique on this host while the stage lives.
  const stageNumber = randomInt(100_000, 1_000_000)
  let cases = 0

  // Another agent with a secret in its workspace, written by its own session as an agent would.
  const victimSecret = `airlock-corpus-victim-${randomBytes(6).toString('hex')}`
  host.agents.service.create('victim', { profile: { capabilities: ['files'] } })
  const victimSession = host.agents.sessions.start('victim', 'test').sessionId
  const wrote = await host.agents.sessions.execute({ sessionId: victimSession, tool: 'write_file', input: { path: 'notes.txt', content: `${victimSecret}\n` } })
  if (!wrote.ok) throw new Error(`the victim's note was not written: ${JSON.stringify(wrote.error)}`)
  await host.agents.sessions.end(victimSession)
  const victimWorkspace = host.agents.service.workspaceOf('victim')
  const victimEntries = readdirSync(victimWorkspace).sort()

  const outsideRoot = join(dir.path, 'outside')
  mkdirSync(outsideRoot, { mode: 0o711 })
  const sysctls = ['kernel/core_pattern', 'fs/lease-break-time', 'kernel/hostname', 'vm/overcommit_memory', 'kernel/modprobe'].filter((name) =>
    existsSync(`/proc/sys/${name}`)
  )
  const sysctlsBefore = Object.fromEntries(sysctls.map((name) => [name, readFileSync(`/proc/sys/${name}`, 'utf8')]))
  const listeners = await openListeners(token)

  /** A fresh agent, workspace, outside folder and canary for one case. */
  async function openCase(caseId: string, limits: Partial<AgentLimits> = {}): Promise<CaseContext & { close(): Promise<void> }> {
    const trusted = providerId === 'trusted_local'
    const profile: AgentProfile = {
      capabilities: ['files', 'shell', 'python'],
      providers: [providerId],
      ask: 'never',
      network: 'none',
      isolation: trusted ? 'none' : 'required',
      ...(trusted ? { allowUnsafeLocal: true } : {}),
      limits: { ...corpusLimits, ...limits }
    }
    cases += 1
    host.agents.service.create(caseId, { profile })
    const { sessionId } = host.agents.sessions.start(caseId, 'test')
    const outside = join(outsideRoot, caseId)
    const outsideSecret = `airlock-corpus-outside-${caseId}-${randomBytes(6).toString('hex')}`
    mkdirSync(outside, { mode: 0o755 })
    for (const [name, content] of Object.entries(outsideFiles(outsideSecret))) writeFileSync(join(outside, name), content, { mode: 0o644 })
    for (const name of ['', ...Object.keys(outsideFiles(outsideSecret))]) chownSync(join(outside, name), identity.uid, identity.gid)
    const canary = startCanary(`airlock-corpus-canary-${token}-${caseId}`, identity)
    canaries.push(canary)
    return {
      providerId,
      caseId,
      agentId: caseId,
      workspace: host.agents.service.workspaceOf(caseId),
      home: host.paths.home,
      outside,
      outsideSecret,
      victimWorkspace,
      victimSecret,
      canary,
      sleepMarker: `${7000 + cases}.${stageNumber}`,
      net: {
        hostIp: listeners.hostIp,
        tcpPort: listeners.tcpPort,
        udpPort: listeners.udpPort,
        dnsPort: listeners.dnsPort,
        abstractName: listeners.abstractName
      },
      hostEnvSecret,
      call: (tool, input) => host.agents.sessions.execute({ sessionId, tool, input }),
      detail: (callId) => host.agents.history.detail(callId),
      async close() {
        await host.agents.sessions.end(sessionId)
        canary.kill()
        // What an unisolated run left in the host's /tmp.
        for (const name of readdirSync('/tmp')) if (name.startsWith(`pwned-${caseId}`)) rmSync(join('/tmp', name), { force: true })
      }
    }
  }

  /**
   * What changed on the host that the case could only have changed by escaping: files named after
   * it anywhere on the stage or in /tmp, its outside folder, the other agent's workspace, its
   * canary, the host listeners, sysctls, survivors of its runs, and any secret in what it got back.
   */
  async function hostEvidence(ctx: CaseContext, results: readonly ActionResult[]): Promise<string[]> {
    const found: string[] = []
    const named = `pwned-${ctx.caseId}`
    for (const path of [...walk(dir.path), ...readdirSync('/tmp').map((name) => join('/tmp', name))])
      if (path.split('/').pop()!.startsWith(named)) found.push(`${path} was created`)
    const expected = outsideFiles(ctx.outsideSecret)
    const entries = readdirSync(ctx.outside).sort()
    if (entries.join() !== Object.keys(expected).sort().join()) found.push(`the outside folder now holds ${entries.join(', ')}`)
    for (const [name, content] of Object.entries(expected))
      if (existsSync(join(ctx.outside, name)) && readFileSync(join(ctx.outside, name), 'utf8') !== content) found.push(`outside/${name} was changed`)
    const outsideStat = lstatSync(ctx.outside)
    if (outsideStat.uid !== identity.uid || !outsideStat.isDirectory()) found.push('the outside folder changed owner or type')
    // Entries another case made (named after it) are that case's evidence, not this one's.
    const strangers = readdirSync(victimWorkspace).filter((name) => !victimEntries.includes(name) && (name.includes(ctx.caseId) || !name.startsWith('pwned-')))
    if (strangers.length > 0) found.push(`the other agent's workspace now holds ${strangers.join(', ')}`)
    if (readFileSync(join(victimWorkspace, 'notes.txt'), 'utf8') !== `${victimSecret}\n`) found.push("the other agent's notes.txt was changed")
    if (!ctx.canary.alive()) found.push(`the canary process ${ctx.canary.pid} was killed`)
    // A connection the run made just before it ended may still be in the listener's accept queue:
    // let this event loop accept and read it before looking (a fast run ended before it did).
    await new Promise((resolve) => setTimeout(resolve, 50))
    for (const [kind, ids] of Object.entries(listeners.reached)) if (ids.has(ctx.caseId)) found.push(`the host ${kind} listener was reached`)
    if (listeners.anonymous.length > 0) found.push(`host listeners were reached without a case id: ${listeners.anonymous.join(', ')}`)
    for (const name of sysctls) if (readFileSync(`/proc/sys/${name}`, 'utf8') !== sysctlsBefore[name]) found.push(`/proc/sys/${name} was changed`)
    const survivors = await survivorsOf(ctx.sleepMarker)
    if (survivors.length > 0) found.push(`processes ${survivors.join(', ')} outlived the call`)
    const said = JSON.stringify(results.map((result) => ({ data: result.data, error: result.error, artifacts: result.artifacts })))
    const artifacts = results.flatMap((result) => result.artifacts).map((artifact) => (existsSync(artifact.path) ? readFileSync(artifact.path, 'latin1') : ''))
    for (const [what, secret] of [
      ['the outside secret', ctx.outsideSecret],
      ["the other agent's secret", victimSecret],
      ["the canary's environment", ctx.canary.secret],
      ["Airlock's own environment", hostEnvSecret]
    ] as const) {
      if (said.includes(secret) || artifacts.some((text) => text.includes(secret))) found.push(`${what} reached the agent`)
    }
    return found
  }

  return {
    host,
    dir,
    identity,
    openCase,
    hostEvidence,
    async close() {
      for (const canary of canaries) canary.kill()
      await host.dispose()
      await listeners.close()
      dir.remove()
    }
  }
}

/** The files of each case's outside folder. */
function outsideFiles(secret: string): Record<string, string> {
  return { 'secret.txt': `${secret}\n`, 'mine.txt': 'a host file of the sandbox uid\n', 'target.txt': 'original\n' }
}

/** A sleep of the sandbox uid, its command line holding `marker`, its environment a secret. */
function startCanary(marker: string, identity: { uid: number; gid: number }) {
  const secret = `airlock-corpus-canary-env-${randomBytes(6).toString('hex')}`
  const child = spawn('/bin/sleep', ['900'], { argv0: marker, stdio: 'ignore', env: { CANARY_SECRET: secret }, uid: identity.uid, gid: identity.gid })
  let exited = false
  child.once('exit', () => (exited = true))
  return {
    pid: child.pid!,
    marker,
    secret,
    alive: () => !exited && isAlive(child.pid!),
    kill: () => void child.kill('SIGKILL')
  }
}

/** Every path under `root`, links not followed. */
function walk(root: string): string[] {
  const paths: string[] = []
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return paths
  }
  for (const name of names) {
    const path = join(root, name)
    paths.push(path)
    try {
      if (lstatSync(path).isDirectory()) paths.push(...walk(path))
    } catch {
      // Gone while looking (a run's area being removed).
    }
  }
  return paths
}

/**
 * Host listeners that record which case reached them: every client sends its case id first (a
 * TCP line, a UDP datagram, a DNS query name's first label, an abstract-socket line).
 */
async function openListeners(token: string) {
  const reached = { TCP: new Set<string>(), UDP: new Set<string>(), DNS: new Set<string>(), 'abstract unix socket': new Set<string>() }
  const anonymous: string[] = []
  const lineServer = (kind: 'TCP' | 'abstract unix socket') =>
    createServer((socket) => {
      let text = ''
      let named = false
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1')
        const id = /^([a-z0-9-]+)\n/.exec(text)?.[1]
        if (id && !named) {
          named = true
          reached[kind].add(id)
          socket.end('welcome\n')
        }
      })
      socket.on('error', () => undefined)
      socket.on('close', () => {
        if (!named) anonymous.push(kind)
      })
    })
  const tcp: Server = lineServer('TCP')
  await new Promise<void>((resolve) => tcp.listen(0, '0.0.0.0', resolve))
  const abstractName = `airlock-corpus-${token}`
  const abstract: Server = lineServer('abstract unix socket')
  await new Promise<void>((resolve) => abstract.listen(`\0${abstractName}`, resolve))
  const udp: UdpSocket = createSocket('udp4')
  udp.on('message', (message) => {
    const id = /^([a-z0-9-]+)/.exec(message.toString('latin1'))?.[1]
    if (id) reached.UDP.add(id)
    else anonymous.push('UDP')
  })
  await new Promise<void>((resolve) => udp.bind(0, '0.0.0.0', resolve))
  const dns: UdpSocket = createSocket('udp4')
  dns.on('message', (message, from) => {
    // The first label of the question (after the 12-byte header): `<case id>.corpus.invalid`.
    const length = message[12] ?? 0
    const id = message.subarray(13, 13 + length).toString('latin1')
    if (/^[a-z0-9-]+$/.test(id)) reached.DNS.add(id)
    else anonymous.push('DNS')
    // Answer NXDOMAIN, so a resolver that asked gets a reply.
    const reply = Buffer.from(message)
    reply[2] = 0x81
    reply[3] = 0x83
    dns.send(reply, from.port, from.address)
  })
  await new Promise<void>((resolve) => dns.bind(0, '127.0.0.1', resolve))
  const hostIp =
    Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal)?.address ?? '127.0.0.1'
  const port = (server: Server) => (server.address() as { port: number }).port
  return {
    reached,
    anonymous,
    hostIp,
    tcpPort: port(tcp),
    udpPort: udp.address().port,
    dnsPort: dns.address().port,
    abstractName,
    async close() {
      await Promise.all([new Promise((resolve) => tcp.close(resolve)), new Promise((resolve) => abstract.close(resolve))])
      udp.close()
      dns.close()
    }
  }
}
