import { existsSync, readFileSync } from 'node:fs'
import { agentIdSchema, agentProfileSchema, describeIssues, type AgentView } from '@shared/agents'
import { AgentError } from '../../console/agent-errors'
import { assertReachableBySandbox } from '../../core'
import type { AgentService } from '../../console/agent-service'
import { withCliContext } from '../../host/cli-context'
import { airlockPaths, resolveHome } from '../../host/paths'
import { defineCommand, type CommandIo } from '../command'
import { CliError, UsageError } from '../cli-error'

const actions = ['create', 'update', 'list', 'rm', 'disable', 'enable'] as const
type Action = (typeof actions)[number]

/**
 * `airlock agent create|update|list|rm|disable|enable` (SPEC §8.1). `update` replaces an agent's
 * profile (and role or name) from a file: the operator's way, besides the desktop app's native
 * dialog, to mark an MCP server `unsafe`, which the web console cannot confirm. Opens the home's database directly, so
 * it works whether or not a console runs on that home (WAL; a running console reads each agent
 * afresh, so a disabled or removed agent's next request is refused there too).
 */
export const agentCommand = defineCommand({
  name: 'agent',
  usage:
    'airlock agent create <id> [--role R] [--profile FILE.json] [--name N] [--json] | agent update <id> [--role R] [--profile FILE.json] [--name N] [--json] | agent list [--json] | agent rm <id> | agent disable <id> | agent enable <id>  [--home DIR]',
  options: { role: 'text', profile: 'text', name: 'text' },
  async run({ options, positionals }, io) {
    const [action, id, ...rest] = positionals
    if (!actions.includes(action as Action)) throw new UsageError(`agent takes ${actions.join(', ')}${action ? `, not ${JSON.stringify(action)}` : ''}`)
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
    if (action === 'list' && id !== undefined) throw new UsageError('agent list takes no id')
    if (action !== 'list' && id === undefined) throw new UsageError(`agent ${action} needs an agent id`)
    const createOnly = (['role', 'profile', 'name'] as const).find((name) => options[name] !== undefined)
    if (action !== 'create' && action !== 'update' && createOnly) throw new UsageError(`--${createOnly} is only for agent create and agent update`)
    if (action === 'update' && !createOnly) throw new UsageError('agent update needs --profile, --role or --name')
    if (id !== undefined) {
      const valid = agentIdSchema.safeParse(id)
      if (!valid.success) throw new UsageError(`agent id ${JSON.stringify(id)}: ${valid.error.issues.map((i) => i.message).join('; ')}`)
    }
    const paths = airlockPaths(resolveHome(options.home))
    // Only create makes a home; the other actions on a home with no database find no agents.
    if (action !== 'create' && !existsSync(paths.database)) {
      if (action === 'list') return printList([], options.json === true, io)
      throw new CliError('not_found', `There is no agent ${id} (no Airlock database at ${paths.home}).`)
    }
    const profile = (action === 'create' || action === 'update') && options.profile ? readProfile(options.profile) : undefined
    const missing = () => new CliError('not_found', `There is no agent ${id} (no Airlock database at ${paths.home}).`)
    try {
      return await withCliContext({ home: paths.home, create: action === 'create', folders: true, missing }, (cli) =>
        perform(action as Action, id!, { agents: cli.agents, io, json: options.json === true, role: options.role, name: options.name, profile })
      )
    } catch (error) {
      throw error instanceof AgentError && ['agent.invalid_name', 'agent.invalid_id'].includes(error.code) ? new UsageError(error.message) : error
    }
  }
})

type Context = { agents: AgentService; io: CommandIo; json: boolean; role?: string; name?: string; profile?: unknown }

function perform(action: Action, id: string, { agents, io, json, role, name, profile }: Context): number {
  switch (action) {
    case 'create': {
      const created = agents.create(id, { role, name, profile })
      if (json) {
        warnIfUnreachable(created.workspace, io)
        io.out(JSON.stringify({ id, token: created.token, name: created.agent.name, role: created.agent.role, workspace: created.workspace }, null, 2))
        return 0
      }
      io.out(`Created agent ${id}${created.agent.role ? ` (role ${created.agent.role})` : ''}; workspace ${created.workspace}`)
      if (created.movedAside) io.out(`A folder already at that place was moved to ${created.movedAside}.`)
      warnIfUnreachable(created.workspace, io)
      io.out(`Token (shown once, keep it secret): ${created.token}`)
      io.out(
        `The agent sends it as "Authorization: Bearer <token>" to the MCP gateway that \`airlock serve\` and the desktop app run (http://127.0.0.1:7411/mcp unless the gateway.port setting or --gateway-port says otherwise); stdio-only clients use \`airlock mcp-stdio --agent ${id}\` with the token in AIRLOCK_TOKEN.`
      )
      return 0
    }
    case 'update': {
      const agent = agents.update(id, {
        ...(role === undefined ? {} : { role }),
        ...(name === undefined ? {} : { name }),
        ...(profile === undefined ? {} : { profile })
      })
      io.out(json ? JSON.stringify(agent, null, 2) : `Updated agent ${id}; its sessions' next calls run under the new profile.`)
      return 0
    }
    case 'list':
      return printList(agents.list(), json, io)
    case 'rm': {
      const removed = agents.remove(id)
      if (json) io.out(JSON.stringify({ id, ...removed }, null, 2))
      else io.out(`Removed agent ${id}${removed.workspaceMovedTo ? `; its workspace was moved to ${removed.workspaceMovedTo}` : ''}.`)
      return 0
    }
    case 'disable':
    case 'enable': {
      const agent = agents.setEnabled(id, action === 'enable')
      io.out(json ? JSON.stringify(agent, null, 2) : `Agent ${id} is ${action}d.`)
      return 0
    }
  }
}

function printList(list: AgentView[], json: boolean, io: CommandIo): number {
  if (json) {
    io.out(JSON.stringify(list, null, 2))
    return 0
  }
  if (list.length === 0) {
    io.out('No agents yet. Create one: airlock agent create <id>')
    return 0
  }
  const rows = [
    ['ID', 'STATE', 'ROLE', 'NAME'],
    ...list.map((a) => [a.id, a.profileError ? 'invalid' : a.enabled ? 'enabled' : 'disabled', a.role ?? '-', a.name])
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  for (const row of rows) io.out(row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '))
  return 0
}

/** Says on stderr (without failing) when sandboxed code could not reach the workspace (a home under /root). */
function warnIfUnreachable(workspace: string, io: CommandIo): void {
  try {
    assertReachableBySandbox(workspace)
  } catch (error) {
    io.err(`airlock: warning: ${(error as Error).message}`)
  }
}

/** Reads and validates a profile file; any problem is bad usage naming the file (and the field). */
function readProfile(file: string): unknown {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read the profile ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`the profile ${file} is not JSON: ${oneLine((error as Error).message)}`)
  }
  const parsed = agentProfileSchema.safeParse(json)
  if (!parsed.success) throw new UsageError(`the profile ${file} is invalid: ${oneLine(describeIssues(parsed.error, 'profile'))}`)
  return parsed.data
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ')
}
