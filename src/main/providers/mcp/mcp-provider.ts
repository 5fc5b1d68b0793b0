import { dirname, isAbsolute, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { z } from 'zod'
import { redactText, secretVariants, type ExecutionResourceProvider, type ProviderProbe, type ResourceHandle, type ResourcePolicy, type ResourceStatus } from '../../core'
import { systemPath } from '../process/run-limits'
import { isLoopbackUrl } from '../browser/chromium'
import { McpConnection } from './mcp-connection'
import { findExecutable, invalidConfig } from '../process/provider-helpers'
import { ProviderError } from '../process/provider-error'

const stdioConfig = z
  .object({
    transport: z.literal('stdio'),
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(4096)).max(256).optional(),
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment names are letters, digits and _'), z.string()).optional(),
    cwd: z.string().startsWith('/', 'must be an absolute path').optional(),
    connectTimeoutMs: z.number().int().min(100).max(120_000).optional()
  })
  .strict()

const httpConfig = z
  .object({
    transport: z.literal('http'),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).optional(),
    connectTimeoutMs: z.number().int().min(100).max(120_000).optional()
  })
  .strict()

/** How to reach an upstream MCP server: a command over stdio, or a Streamable HTTP URL. */
export const mcpConfigSchema = z.discriminatedUnion('transport', [stdioConfig, httpConfig])

/** The name and version Airlock announces to upstream servers. */
const clientInfo = { name: 'airlock', version: '0.1.0' }

/**
 * `mcp`: a connected @modelcontextprotocol/sdk client to one upstream server (SPEC §4). Over
 * stdio the server is a child process (command, args, env); over Streamable HTTP a URL with
 * headers, limited to loopback unless the policy allows network. Release closes the transport
 * and ends the child. Headers and env never leave the transport (events carry neither).
 */
export class McpProvider implements ExecutionResourceProvider {
  readonly providerId = 'mcp'
  readonly supportedKinds = ['mcp'] as const

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const parsed = mcpConfigSchema.safeParse(requirement.config ?? {})
    if (!parsed.success) return invalidConfig('mcp', parsed.error)
    const config = parsed.data
    if (config.transport === 'stdio') {
      const command = resolveCommand(config.command)
      if (!command) return { available: false, reason: `the upstream command ${config.command} was not found; install it or give its absolute path` }
      return { available: true, capabilities: { transport: 'stdio', command } }
    }
    if (!networkAllows(policy, config.url)) return { available: false, reason: `${new URL(config.url).origin} is outside the network policy (network none: only loopback MCP servers)` }
    return { available: true, capabilities: { transport: 'http', origin: new URL(config.url).origin } }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = mcpConfigSchema.parse(requirement.config ?? {})
    const client = new Client(clientInfo)
    const timeout = config.connectTimeoutMs ?? 20_000
    if (config.transport === 'stdio') {
      const command = resolveCommand(config.command)
      if (!command) throw new ProviderError('host_tool_missing', `the upstream command ${config.command} was not found`)
      const transport = new StdioClientTransport({
        command,
        args: config.args ?? [],
        env: { PATH: `${systemPath}:${dirname(process.execPath)}`, ...config.env },
        cwd: config.cwd,
        stderr: 'ignore'
      })
      await connect(client, transport, timeout, Object.values(config.env ?? {}))
      return { resource: new McpConnection(client, transport.pid ?? undefined), meta: { transport: 'stdio', server: client.getServerVersion() } }
    }
    if (!networkAllows(policy, config.url)) throw new ProviderError('network_refused', `${new URL(config.url).origin} is outside the network policy`)
    const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } })
    await connect(client, transport, timeout, Object.values(config.headers ?? {}))
    return { resource: new McpConnection(client, undefined), meta: { transport: 'http', origin: new URL(config.url).origin, server: client.getServerVersion() } }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    return (await (handle.resource as McpConnection).ping()) ? 'ready' : 'unhealthy'
  }

  async release(handle: ResourceHandle): Promise<void> {
    await (handle.resource as McpConnection).close()
  }
}

async function connect(client: Client, transport: StdioClientTransport | StreamableHTTPClientTransport, timeout: number, secrets: string[]): Promise<void> {
  try {
    await client.connect(transport, { timeout })
  } catch (error) {
    await client.close().catch(() => undefined)
    // The SDK's message can quote the upstream's answer, and an upstream may echo the credential it
    // was sent (a 401 body naming the header): the config's env and header values, and a header's
    // bare credential, are taken out. The SDK error itself is not kept as the cause for that reason.
    const message = redactText(error instanceof Error ? error.message : String(error), secretVariants(secrets))
    throw new ProviderError('upstream_unavailable', `could not connect to the upstream MCP server: ${message}`)
  }
}

function networkAllows(policy: ResourcePolicy, url: string): boolean {
  return policy.networkMode === 'full' || isLoopbackUrl(url)
}

/** An executable path for a command: absolute as given, else looked up on the system PATH and node's own folder. */
function resolveCommand(command: string): string | undefined {
  return findExecutable(isAbsolute(command) ? [command] : [...systemPath.split(':'), dirname(process.execPath)].map((dir) => join(dir, command)))
}
