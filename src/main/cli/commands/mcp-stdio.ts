import { readFileSync } from 'node:fs'
import { agentIdSchema } from '@shared/agents'
import { GatewayNotTrusted, trustedGatewayAddress } from '../../console/gateway-address'
import { refuseOverStdio, runStdioBridge } from '../../gateway/stdio-bridge'
import { airlockPaths, resolveHome, type AirlockPaths } from '../../host'
import { withCliContext } from '../../host/cli-context'
import { defineCommand } from '../command'
import { CliError, UsageError } from '../cli-error'

/**
 * `airlock mcp-stdio --agent <id> [--token-file F]` (SPEC §8.1): a stdio MCP server for clients
 * that only speak stdio, relaying to the agent gateway running on this home (`airlock serve` or
 * the desktop app; found through `<home>/run/gateway.json`, which must be this user's and name a
 * live gateway holding its port, checked before every request: see `trustedGatewayAddress`). The token comes from `AIRLOCK_TOKEN`
 * or the file, never the command line, where every user of the machine could read it. Stdout
 * carries JSON-RPC only; everything for people goes to stderr.
 */
export const mcpStdioCommand = defineCommand({
  name: 'mcp-stdio',
  usage: 'airlock mcp-stdio --agent <id> [--token-file FILE] [--home DIR]   (the token from AIRLOCK_TOKEN or the file, never the command line)',
  // `token` is declared only to refuse it with the reason (parseArgs would just call it unknown).
  options: { agent: 'text', 'token-file': 'text', token: 'text' },
  async run(parsed, io) {
    try {
      return await serveStdio(parsed, io)
    } catch (error) {
      // A stdio client rarely shows stderr: its initialize is answered with the reason before the exit.
      if (error instanceof CliError || error instanceof UsageError)
        await refuseOverStdio({ stdin: process.stdin, stdout: process.stdout, reason: error.message })
      throw error
    }
  }
})

/** The command's work: checks, then the bridge until stdin ends (refusals are thrown for `run` to answer). */
async function serveStdio(
  { options, positionals }: { options: { agent?: string; 'token-file'?: string; token?: string; home?: string }; positionals: string[] },
  io: { err(line: string): void }
): Promise<number> {
  if (options.token !== undefined)
    throw new UsageError(
      '--token is not accepted: a token on the command line is visible to every user of this machine; put it in AIRLOCK_TOKEN or in a file named by --token-file'
    )
  if (positionals.length > 0) throw new UsageError(`mcp-stdio takes no arguments, got ${positionals[0]}`)
  if (options.agent === undefined) throw new UsageError('mcp-stdio needs --agent <id>')
  const valid = agentIdSchema.safeParse(options.agent)
  if (!valid.success) throw new UsageError(`agent id ${JSON.stringify(options.agent)}: ${valid.error.issues.map((i) => i.message).join('; ')}`)
  const token = readToken(options['token-file'])
  const paths = airlockPaths(resolveHome(options.home))
  await checkTokenIsAgents(paths, options.agent, token)
  // Asked now (to fail at once) and again before every request the bridge sends.
  const locate = () => trustedGatewayAddress(paths.home).url
  try {
    locate()
  } catch (error) {
    if (error instanceof GatewayNotTrusted) throw new CliError('not_found', error.message)
    throw error
  }
  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal)
  try {
    await runStdioBridge({ locate, token, stdin: process.stdin, stdout: process.stdout, report: io.err, signal: stop.signal })
    return 0
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal)
  }
}

/** The token from `--token-file` (trimmed), else `AIRLOCK_TOKEN`. */
function readToken(file: string | undefined): string {
  if (file !== undefined) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (error) {
      throw new CliError('not_found', `Cannot read the token file ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`)
    }
    const token = text.trim()
    if (token === '') throw new CliError('invalid_input', `The token file ${file} is empty.`)
    return token
  }
  const token = process.env.AIRLOCK_TOKEN?.trim()
  if (!token) throw new UsageError("mcp-stdio needs the agent's token in AIRLOCK_TOKEN or in a file named by --token-file")
  return token
}

/**
 * Refuses a token that is not this agent's before anything is relayed, with a line that says so
 * (the gateway would refuse it too, but only as "unauthorized"). Reads the home's database the way
 * the other commands do; the token is compared against stored digests, never printed.
 */
async function checkTokenIsAgents(paths: AirlockPaths, agentId: string, token: string): Promise<void> {
  const missing = () => new CliError('not_found', `There is no Airlock database at ${paths.home}, so no agent ${agentId}.`)
  await withCliContext({ home: paths.home, missing }, ({ agents }) => {
    if (agents.state(agentId) === 'removed') throw new CliError('not_found', `There is no agent ${agentId}.`)
    if (agents.state(agentId) === 'disabled')
      throw new CliError('invalid_input', `Agent ${agentId} is disabled; enable it with \`airlock agent enable ${agentId}\`.`)
    const owner = agents.authenticate(token)
    if (!owner) throw new CliError('invalid_input', `The token is not valid for any enabled agent (wrong, or rotated); use agent ${agentId}'s current token.`)
    if (owner.id !== agentId) throw new CliError('invalid_input', `The token belongs to another agent, not ${agentId}; use ${agentId}'s own token.`)
  })
}
