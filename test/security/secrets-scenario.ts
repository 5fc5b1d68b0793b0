import { resolve } from 'node:path'
import type { RunningConsole } from '../../src/main/app/serve'
import { callTool, connectAgent, type GatewayToolResult } from '../support/mcp-gateway-client'

// One scenario, two scans: secrets-scan.test.ts reads every record and IPC answer of it, and
// e2e/secrets.spec.ts opens every console view on it in Chromium. The secrets are planted where
// Airlock is told a value is secret, then typed, passed and printed by agents through the gateway.

const everything = resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')

/**
 * Values Airlock knows are secret, each of which must appear in no record, no IPC answer and no
 * rendered view. Letters and digits only, so a word search for one is meaningful too.
 * Agent profiles have no `env` of their own: an agent's secrets are its MCP servers' `env` and
 * `headers` (the MCP provider's config, the field meant to carry them; src/shared/agents.ts),
 * whether set on the agent or inherited from its role.
 */
export const canaries = {
  /** `env` of the coder's own stdio MCP server. */
  mcpEnv: 'mcpenvcanary7f3a91c2d4e8',
  /** `headers` of the coder's own HTTP MCP server (stored as `Bearer <value>`). */
  mcpHeader: 'mcpheadercanary2e8b6d0a9f1c',
  /** `env` of an MCP server the reviewer inherits from its role. */
  roleEnv: 'roleenvcanary5c1f0e7b3a9d',
  /** The value of an Airlock process variable named in `policy.secret_env_vars`. */
  processEnv: 'procenvcanary9d4a2c6e1b7f'
} as const

/** Credentials an agent types in a command line, found by their shape (`--password=…`, `sk-…`), not known in advance. */
export const typedCanaries = {
  password: 'pwcanary31b7e0c9d5a2',
  apiKey: 'sk-scancanary0123456789abcdefXYZ'
} as const

/**
 * A value in a code-execution provider's candidate config (setting `code_execution.providers`)
 * and in a requirement's `config`. No code-execution provider has a secret config key (bubblewrap:
 * `bwrapPath`, `readOnlyBinds`; docker: `image`, `language`, `profile`, `pullApproved`,
 * `extraArgs`; trusted_local: `allowUnsafeLocal`), so the Settings contract returns the setting
 * as the operator saved it (the Providers view writes the order back with each config kept) and
 * the Settings view shows only "with config". SPEC §3.5 still keeps config out of every event,
 * handle and audit row: it is scanned everywhere but the settings answers.
 */
export const configCanary = 'configcanary8a2d5f1e6c4b'

/** The Airlock process variable whose value is `canaries.processEnv`. */
export const secretEnvName = 'AIRLOCK_SCAN_SECRET_VALUE'

/** What the scenario left: agents' tokens (secrets too), ids of what the agents did, and the call still waiting, if asked for. */
export type SecretsScenario = {
  tokens: { coder: string; reviewer: string }
  /** Every gateway result, by what it was. */
  results: Record<string, GatewayToolResult>
  /** The queue item approved once, the one denied, and the one left pending (if any). */
  approvals: { ruled: string; denied: string; pending?: string }
  /** A handle a library caller ensured with the config canary (released by the host at stop). */
  configHandleId: string
  /** The call left waiting for the operator; settles when the console stops. */
  waiting?: Promise<unknown>
  /** Ends the agents' MCP sessions. */
  close(): Promise<void>
}

const b64 = (text: string) => Buffer.from(text).toString('base64')

/** A shell expression printing a value that does not appear in the command line itself. */
const decoded = (text: string) => `"$(echo ${b64(text)} | base64 -d)"`

/** Every secret value the scans look for, by name (tokens included once known). */
export function secretValues(tokens?: SecretsScenario['tokens']): Record<string, string> {
  return { ...canaries, ...typedCanaries, configCanary, ...(tokens ? { coderToken: tokens.coder, reviewerToken: tokens.reviewer } : {}) }
}

/** The names of the secrets that occur in `text`. */
export function secretsIn(text: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, value]) => text.includes(value))
    .map(([name]) => name)
}

/**
 * Plants every secret and makes the agents use them through the real gateway: typed in command
 * lines and code arguments, printed by commands, code and upstream MCP servers, quoted in errors,
 * asked about in the approval queue (one approved as a rule, one denied, one left pending when
 * `leavePending`), and a library caller's requirement with config. Every change goes through the
 * contract a console calls.
 */
export async function runSecretsScenario(running: RunningConsole, options: { leavePending?: boolean } = {}): Promise<SecretsScenario> {
  const ctx = { transport: 'websocket' } as const
  const call = async <T>(channel: string, input: unknown): Promise<T> => {
    const result = await running.host.dispatch(`airlock:${channel}`, input, ctx)
    if (!result.ok) throw new Error(`${channel}: ${result.error.code}: ${result.error.message}`)
    return result.value as T
  }
  process.env[secretEnvName] = canaries.processEnv
  await call('settings:set', { key: 'policy.secret_env_vars', value: [secretEnvName] })
  await call('settings:set', { key: 'code_execution.providers', value: [{ providerId: 'bubblewrap', config: { apiToken: configCanary } }, 'docker'] })
  // Unsafe (host-run) MCP servers are set up the operator's CLI way: the web console may not mark one (issue 24).
  running.host.agents.roles.save({
    id: 'ops',
    name: 'Operations',
    defaults: {
      capabilities: ['files', 'shell', 'mcp'],
      providers: ['bubblewrap'],
      mcpServers: [{ name: 'vault', command: ['node', everything, 'stdio'], env: { VAULT_TOKEN: canaries.roleEnv }, unsafe: true }]
    }
  })
  const coder = running.host.agents.service.create('coder', {
    name: 'Coder',
    profile: {
      capabilities: ['files', 'shell', 'python', 'mcp'],
      providers: ['bubblewrap'],
      mcpServers: [
        { name: 'everything', command: ['node', everything, 'stdio'], env: { API_TOKEN: canaries.mcpEnv }, unsafe: true },
        { name: 'remote', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: `Bearer ${canaries.mcpHeader}` } }
      ]
    }
  })
  const reviewer = await call<{ token: string }>('agents:create', { agentId: 'reviewer', name: 'Reviewer', role: 'ops' })

  const gatewayUrl = running.gateway.url
  const coderAgent = await connectAgent(gatewayUrl, coder.token)
  const reviewerAgent = await connectAgent(gatewayUrl, reviewer.token)
  const results: Record<string, GatewayToolResult> = {}
  const run = async (name: string, client: typeof coderAgent, tool: string, input: Record<string, unknown>) =>
    (results[name] = await callTool(client.client, tool, input, { timeout: 120_000 }))

  // Typed in the command line, and printed without being in it (stdout and stderr), exit non-zero.
  await run('commandArgs', coderAgent, 'run_command', {
    command: `echo ${canaries.mcpEnv} ${canaries.mcpHeader} ${canaries.processEnv} --password=${typedCanaries.password} ${typedCanaries.apiKey}; printf '%s\\n' ${decoded(canaries.mcpEnv)} ${decoded(canaries.processEnv)} >&2; exit 4`
  })
  await run('commandOutput', coderAgent, 'run_command', {
    command: `printf 'token: %s\\nheader: %s\\n' ${decoded(canaries.mcpEnv)} ${decoded(canaries.mcpHeader)}`
  })
  // Printed while the command still runs: the console's live output is told it (history.output).
  await run('liveOutput', coderAgent, 'run_command', { command: `printf 'live: %s\\n' ${decoded(canaries.mcpEnv)}; sleep 1` })
  // Output over 64 KiB goes to a log file under <home>/logs.
  await run('bigOutput', coderAgent, 'run_command', { command: `yes ${decoded(canaries.processEnv)} | head -c 200000` })
  // Code: secrets as program arguments, and printed from values built at run time.
  await run('codeArgs', coderAgent, 'run_code', {
    language: 'python',
    sourceCode: `import base64, sys\nprint(' '.join(sys.argv[1:]))\nprint(base64.b64decode('${b64(canaries.mcpEnv)}').decode())\nprint(base64.b64decode('${b64(canaries.processEnv)}').decode(), file=sys.stderr)\n`,
    args: [canaries.mcpHeader, `--token=${typedCanaries.password}`]
  })
  // An error message that quotes what the agent sent.
  await run('errorQuote', coderAgent, 'read_file', { path: `missing-${canaries.mcpEnv}.txt` })
  // Upstream MCP servers: one prints its env, one echoes its argument, one is unreachable.
  await run('upstreamEnv', coderAgent, 'everything__get-env', {})
  await run('upstreamEcho', coderAgent, 'everything__echo', { message: `echo ${canaries.mcpHeader} ${canaries.processEnv}` })
  await run('upstreamDown', coderAgent, 'remote__anything', { token: canaries.mcpEnv })
  await run('roleUpstreamEnv', reviewerAgent, 'vault__get-env', {})
  await run('roleCommand', reviewerAgent, 'run_command', { command: `echo ${canaries.roleEnv} ${decoded(canaries.roleEnv)} ${decoded(canaries.processEnv)}` })

  // The approval queue: the operator sees (and decides on) what asked, secrets in it.
  const ask = async (name: string, command: string): Promise<{ id: string; result: Promise<GatewayToolResult> }> => {
    const before = new Set((await call<{ id: string }[]>('approvals:list', { status: 'all' })).map((item) => item.id))
    const result = callTool(coderAgent.client, 'run_command', { command }, { timeout: 600_000 }).then((value) => (results[name] = value))
    const until = Date.now() + 60_000
    while (Date.now() < until) {
      const fresh = (await call<{ id: string }[]>('approvals:list', {})).find((item) => !before.has(item.id))
      if (fresh) return { id: fresh.id, result }
      await new Promise((resolveWait) => setTimeout(resolveWait, 50))
    }
    throw new Error(`no approval item appeared for ${name}`)
  }
  const ruled = await ask('approvedOnce', `rm -rf build-${canaries.mcpEnv} && echo ${decoded(canaries.mcpHeader)}`)
  // A line with a redacted part is never remembered as a rule (the rule would hold the secret or
  // match what the operator never saw): the console offers to approve it once.
  const asRule = await running.host.dispatch('airlock:approvals:decide', { id: ruled.id, decision: 'approve', scope: 'rule' }, ctx)
  if (asRule.ok || asRule.error.code !== 'approval.not_rememberable')
    throw new Error(`a line with a secret was remembered as a rule: ${JSON.stringify(asRule)}`)
  await call('approvals:decide', { id: ruled.id, decision: 'approve', scope: 'once' })
  await ruled.result
  const denied = await ask('denied', `rm -rf cache-${canaries.processEnv} --password=${typedCanaries.password}`)
  await call('approvals:decide', { id: denied.id, decision: 'deny', reason: 'not now' })
  await denied.result
  const pending = options.leavePending ? await ask('pending', `rm -rf dist-${canaries.mcpEnv} ${typedCanaries.apiKey}`) : undefined

  // A library caller's requirement (SPEC §3.7) with config, served by the configured candidate and its config.
  const handle = await running.host.resources.ensure({
    kind: 'code_execution',
    scope: 'global',
    ownerId: 'secrets-scan',
    config: { apiKey: configCanary },
    policy: { workspaceRoots: [running.host.agents.service.workspaceOf('coder')] }
  })

  return {
    tokens: { coder: coder.token, reviewer: reviewer.token },
    results,
    approvals: { ruled: ruled.id, denied: denied.id, ...(pending ? { pending: pending.id } : {}) },
    configHandleId: handle.handleId,
    ...(pending ? { waiting: pending.result.catch(() => undefined) } : {}),
    async close() {
      await coderAgent.close().catch(() => undefined)
      await reviewerAgent.close().catch(() => undefined)
      delete process.env[secretEnvName]
    }
  }
}
