import { closeSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { z } from 'zod'
import {
  egressEnv,
  ExecutionResourceError,
  redactText,
  sandboxIdentity,
  secretVariants,
  type EgressEndpoint,
  type EgressPort,
  type ExecutionResourceProvider,
  type IsolationFacts,
  type ProviderProbe,
  type ResourceHandle,
  type ResourcePolicy,
  type ResourceRequirement,
  type ResourceStatus
} from '../../core'
import { StdioSandbox } from '../bubblewrap/stdio-sandbox'
import { isLoopbackUrl } from '../browser/chromium'
import { bridgeNode, bridgedArgv, openEgressBind } from '../runner/egress-bridge'
import { systemPath } from '../runner/run-limits'
import type { RunLedger } from '../runner/run-ledger'
import { findExecutable, invalidConfig } from '../provider-helpers'
import { ProviderError } from '../../core/provider-error'
import { McpConnection } from './mcp-connection'
import { SandboxedStdioTransport } from './sandboxed-stdio-transport'
import { startHostServer } from './host-server-process'
import { checkServerSandbox, openServerState, planServerSandbox } from './server-sandbox'

const stdioConfig = z
  .object({
    transport: z.literal('stdio'),
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(4096)).max(256).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment names are letters, digits and _'), z.string()).optional(),
    /** Runs the server on the host, without a sandbox (the operator's explicit `unsafe: true`), as the sandbox uid, never root. */
    unsafe: z.literal(true).optional(),
    /** Its private state folder `<home>/mcp-state/<agent>/<server>` (its HOME and cwd), out of every agent's reach. */
    stateDir: z.string().startsWith('/', 'must be an absolute path'),
    /** Sandboxed: host directories it may read (checked in server-sandbox.ts). */
    readOnlyPaths: z.array(z.string().startsWith('/', 'must be absolute paths')).max(16).optional(),
    connectTimeoutMs: z.number().int().min(100).max(120_000).optional()
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.unsafe && config.readOnlyPaths !== undefined)
      ctx.addIssue({ code: 'custom', path: ['readOnlyPaths'], message: 'does not apply to an unsafe (host) server' })
  })

const httpConfig = z
  .object({
    transport: z.literal('http'),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).optional(),
    connectTimeoutMs: z.number().int().min(100).max(120_000).optional()
  })
  .strict()

/** How to reach an upstream MCP server: a command over stdio (sandboxed unless `unsafe`), or a Streamable HTTP URL. */
export const mcpConfigSchema = z.discriminatedUnion('transport', [stdioConfig, httpConfig])

type StdioConfig = z.infer<typeof stdioConfig>

/**
 * What the provider is built from: the Airlock home (where servers' state folders must lie), the run
 * ledger, a bwrap to use instead of the system's, and Airlock's egress proxy (what a sandboxed
 * server with `network: "proxy"` goes through; without it such a server is refused).
 */
export type McpProviderOptions = { home?: string; runLedger?: RunLedger; bwrapPath?: string; egress?: EgressPort; nodePath?: string }

/** The name and version Airlock announces to upstream servers. */
const clientInfo = { name: 'airlock', version: '0.1.0' }

/** Limits of a sandboxed server the policy does not set (SPEC §6.1 agent defaults). */
const defaultLimits = { cpuSeconds: 60, memoryMb: 1024, pids: 256 }

/** What an unsafe server is isolated by: nothing. */
const hostIsolation: IsolationFacts = {
  processContained: false,
  hostFilesystemRestricted: false,
  privilegeEscalationBlocked: false,
  syscallsRestricted: false,
  mechanism: 'host (unsafe)',
  networkMode: 'full'
}

/**
 * `mcp`: a connected @modelcontextprotocol/sdk client to one upstream server (SPEC §4). A stdio
 * server runs inside a bubblewrap sandbox (`StdioSandbox`: namespaces, seccomp, no capabilities,
 * the sandbox uid, per-run cgroup limits, only stdio open) with its state folder writable,
 * its read-only paths, only its env, and network only when the policy says `full` (or, under
 * `proxy`, only through the egress proxy: the sandbox keeps no network and the server runs behind
 * the same bridge as bubblewrap runs, its connections recorded with each call); where
 * bubblewrap does not work it is refused (fail closed). With `unsafe: true` it runs on the host as
 * the operator asked — still as the sandbox uid (never root), in its own state folder, with only
 * its env — and probe and meta say it is unsandboxed. Over Streamable HTTP: a URL with
 * headers, limited to loopback unless the policy allows network. Release closes the transport and
 * ends the server. Headers and env never leave the transport (events carry neither).
 */
export class McpProvider implements ExecutionResourceProvider {
  readonly providerId = 'mcp'
  readonly supportedKinds = ['mcp'] as const

  constructor(private readonly options: McpProviderOptions = {}) {}

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const parsed = mcpConfigSchema.safeParse(requirement.config ?? {})
    if (!parsed.success) return invalidConfig('mcp', parsed.error)
    const config = parsed.data
    if (config.transport === 'stdio' && config.unsafe) {
      const command = resolveHostCommand(config.command)
      if (!command) return { available: false, reason: `the upstream command ${config.command} was not found; install it or give its absolute path` }
      if (!this.options.home) return { available: false, reason: "this mcp provider was built without the Airlock home the server's state folder must lie in" }
      const uid = sandboxIdentity().uid
      return {
        available: true,
        capabilities: { transport: 'stdio', command, sandboxed: false, isolation: hostIsolation, uid },
        diagnostics: [`marked unsafe: runs on the host without a sandbox, as uid ${uid}`]
      }
    }
    if (config.transport === 'stdio') return this.probeSandboxed(config, policy)
    if (!networkAllows(policy, config.url))
      return { available: false, reason: `${new URL(config.url).origin} is outside the network policy (network none: only loopback MCP servers)` }
    return { available: true, capabilities: { transport: 'http', origin: new URL(config.url).origin } }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = mcpConfigSchema.parse(requirement.config ?? {})
    const client = new Client(clientInfo)
    const timeout = config.connectTimeoutMs ?? 20_000
    if (config.transport === 'stdio' && config.unsafe) {
      const command = resolveHostCommand(config.command)
      if (!command) throw new ProviderError('host_tool_missing', `the upstream command ${config.command} was not found`)
      if (!this.options.home)
        throw new ExecutionResourceError('invalid_requirement', 'an unsafe stdio MCP server needs the Airlock home its state folder lies in', {
          providerId: this.providerId
        })
      const identity = sandboxIdentity()
      const state = openServerState(realpathSync(this.options.home), config.stateDir, identity)
      closeSync(state.fd)
      const env = { PATH: `${systemPath}:${dirname(process.execPath)}`, HOME: state.dest, LANG: 'C.UTF-8', TMPDIR: '/tmp', ...config.env }
      const transport = new SandboxedStdioTransport(() =>
        startHostServer([command, ...(config.args ?? [])], { cwd: state.dest, env, identity, recording: this.recording() })
      )
      await connect(client, transport, timeout, Object.values(config.env ?? {}), () => transport.stderrTail())
      return {
        resource: new McpConnection(client, transport.pid),
        meta: {
          transport: 'stdio',
          sandboxed: false,
          unsafe: true,
          isolation: hostIsolation,
          uid: identity.uid,
          stateDir: state.dest,
          server: client.getServerVersion()
        }
      }
    }
    if (config.transport === 'stdio') return this.ensureSandboxed(client, config, requirement, policy, timeout)
    if (!networkAllows(policy, config.url)) throw new ProviderError('network_refused', `${new URL(config.url).origin} is outside the network policy`)
    const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } })
    await connect(client, transport, timeout, Object.values(config.headers ?? {}))
    return {
      resource: new McpConnection(client, undefined),
      meta: { transport: 'http', origin: new URL(config.url).origin, server: client.getServerVersion() }
    }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    return (await (handle.resource as McpConnection).ping()) ? 'ready' : 'unhealthy'
  }

  async release(handle: ResourceHandle): Promise<void> {
    await (handle.resource as McpConnection).close()
  }

  /** After a crash: sandboxed servers die with Airlock (`--die-with-parent`); a launcher caught before bwrap, and the cgroups, are in the ledger. */
  async recover(): Promise<string[]> {
    return this.options.runLedger?.recover(this.providerId) ?? []
  }

  /** Where started servers are recorded for crash recovery, when this provider has a ledger. */
  private recording(): { ledger: RunLedger; providerId: string } | undefined {
    return this.options.runLedger ? { ledger: this.options.runLedger, providerId: this.providerId } : undefined
  }

  private async probeSandboxed(config: StdioConfig, policy: ResourcePolicy): Promise<ProviderProbe> {
    const refusal = `the stdio MCP server runs only inside a sandbox (it is not marked "unsafe": true)`
    if (!this.options.home)
      return { available: false, reason: `${refusal}, and this mcp provider was built without the Airlock home its state folder must lie in` }
    const sandbox = await StdioSandbox.detect(this.options.bwrapPath)
    if (!(sandbox instanceof StdioSandbox)) return { available: false, reason: `${refusal}, and bubblewrap cannot run here: ${sandbox.reason}` }
    if (policy.networkMode === 'proxy' && !this.options.egress)
      return { available: false, reason: 'network "proxy" needs Airlock\'s egress proxy, which this host does not run' }
    try {
      const { command } = checkServerSandbox({
        home: this.options.home,
        command: config.command,
        args: config.args ?? [],
        stateDir: config.stateDir,
        readOnlyPaths: config.readOnlyPaths ?? []
      })
      const network = networkOf(policy)
      return {
        available: true,
        capabilities: {
          transport: 'stdio',
          command,
          sandboxed: true,
          isolation: sandbox.isolation(network),
          limits: sandbox.limitFacts(),
          sandboxUid: sandbox.identity.uid,
          bwrapVersion: sandbox.bwrapVersion
        },
        diagnostics: [`runs in bubblewrap ${sandbox.bwrapVersion} as uid ${sandbox.identity.uid}, network ${network}`]
      }
    } catch (error) {
      return { available: false, reason: (error as Error).message }
    }
  }

  private async ensureSandboxed(client: Client, config: StdioConfig, requirement: ResourceRequirement, policy: ResourcePolicy, timeout: number) {
    const sandbox = await StdioSandbox.detect(this.options.bwrapPath)
    if (!(sandbox instanceof StdioSandbox) || !this.options.home) {
      throw new ExecutionResourceError(
        'bubblewrap_unavailable',
        `the stdio MCP server cannot run sandboxed here${sandbox instanceof StdioSandbox ? '' : `: ${sandbox.reason}`}`,
        { providerId: this.providerId }
      )
    }
    const plan = planServerSandbox({
      home: this.options.home,
      identity: sandbox.identity,
      command: config.command,
      args: config.args ?? [],
      stateDir: config.stateDir,
      readOnlyPaths: config.readOnlyPaths ?? [],
      env: config.env
    })
    const network = networkOf(policy)
    const limits = { ...defaultLimits, ...policy.limits }
    const recording = this.recording()
    let egress: EgressEndpoint | undefined
    let run = { argv: plan.argv, binds: plan.binds, env: plan.env, readOnly: [] as string[] }
    if (network === 'proxy') {
      if (!this.options.egress) {
        plan.close()
        throw new ExecutionResourceError('invalid_requirement', 'network "proxy" needs Airlock\'s egress proxy, which this host does not run', {
          providerId: this.providerId
        })
      }
      let opened
      try {
        // Windowed: the server outlives its calls; it may connect only while one of them runs.
        const server = typeof requirement.meta?.server === 'string' ? { mcpServer: requirement.meta.server } : {}
        opened = await openEgressBind(
          this.options.egress,
          { scope: requirement.scope, ownerId: requirement.ownerId, actionCallId: requirement.actionCallId, ...server },
          { attribution: 'window' }
        )
      } catch (error) {
        plan.close()
        throw error
      }
      egress = opened.endpoint
      const node = bridgeNode(this.options.nodePath)
      // No run token: one server serves every call of the session; each call opens the window its connections are credited to.
      run = {
        argv: bridgedArgv(node.path, egress.socketName, '-', plan.argv),
        binds: [...plan.binds, opened.bind],
        env: { ...plan.env, ...egressEnv(), ...node.env },
        readOnly: node.readOnly
      }
    }
    // The egress folder's descriptor is closed once, like the plan's (a second close could hit a reused number).
    const egressFd = egress ? run.binds.at(-1)!.fd : undefined
    let egressFdOpen = egressFd !== undefined
    const closeEgressFd = () => {
      if (egressFdOpen) closeSync(egressFd!)
      egressFdOpen = false
    }
    const transport = new SandboxedStdioTransport(() => {
      try {
        return sandbox.start(
          { argv: run.argv, binds: run.binds, cwd: plan.cwd, env: run.env, network: network === 'full' ? 'full' : 'none', readOnly: run.readOnly, limits },
          recording
        )
      } finally {
        // The launcher holds its own copies of the bind descriptors now.
        plan.close()
        closeEgressFd()
      }
    })
    try {
      await connect(client, transport, timeout, Object.values(config.env ?? {}), () => transport.stderrTail())
    } catch (error) {
      await egress?.close()
      throw error
    } finally {
      plan.close()
      closeEgressFd()
    }
    const isolation = sandbox.isolation(network)
    return {
      resource: new McpConnection(client, transport.pid, egress),
      meta: { transport: 'stdio', sandboxed: true, isolation, stateDir: plan.cwd, bwrapVersion: sandbox.bwrapVersion, server: client.getServerVersion() }
    }
  }
}

async function connect(client: Client, transport: Transport, timeout: number, secrets: string[], stderrTail?: () => string): Promise<void> {
  try {
    await client.connect(transport, { timeout })
  } catch (error) {
    const said = stderrTail ? whatItSaid(stderrTail()) : undefined
    await client.close().catch(() => undefined)
    // The SDK's message can quote the upstream's answer, and an upstream may echo the credential it
    // was sent (a 401 body naming the header): the config's env and header values, and a header's
    // bare credential, are taken out. The SDK error itself is not kept as the cause for that reason.
    const message = redactText(`${error instanceof Error ? error.message : String(error)}${said ? `; the server said: ${said}` : ''}`, secretVariants(secrets))
    throw new ProviderError('upstream_unavailable', `could not connect to the upstream MCP server: ${message}`)
  }
}

/**
 * The lines of a server's stderr worth quoting when it would not start: those that name an error
 * (node's "Error: Cannot find module", "FATAL ERROR: ... out of memory"), else its last lines.
 */
function whatItSaid(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  const errors = lines.filter((line) => /error|denied|not found|no such/i.test(line))
  const said = (errors.length ? errors.slice(0, 3) : lines.slice(-3)).join(' | ')
  return said ? said.slice(0, 1000) : undefined
}

function networkAllows(policy: ResourcePolicy, url: string): boolean {
  return policy.networkMode === 'full' || isLoopbackUrl(url)
}

/** A sandboxed server's network: what the policy says, none when it says nothing. */
function networkOf(policy: ResourcePolicy): 'none' | 'proxy' | 'full' {
  return policy.networkMode ?? 'none'
}

/** An unsafe server's executable: absolute as given, else looked up on the system PATH and node's own folder. */
function resolveHostCommand(command: string): string | undefined {
  return findExecutable(isAbsolute(command) ? [command] : [...systemPath.split(':'), dirname(process.execPath)].map((dir) => join(dir, command)))
}
