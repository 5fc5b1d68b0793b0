import { netHostInputSchema, netRuleInputSchema, parseRuleTarget, type NetRule } from '@shared/network'
import { visibleJson, visibleText } from '@shared/visible-text'
import { withCliContext, type CliContext } from '../../host/cli-context'
import { CliError, UsageError } from '../cli-error'
import { defineCommand, type CommandIo } from '../command'

/**
 * `airlock net rules list|add|rm` and `airlock net hosts add|rm` (SPEC §8.1): the egress proxy's
 * domain rules and pinned names, written to the home's database; a running console's proxy reads
 * them on every connection.
 *   net rules add (--agent A | --role R | --global) allow|deny|ask <host or *.suffix>[:port]
 *   net hosts add <name> <ip>     (the proxy resolves <name> to <ip> before DNS; any address)
 */
export const netCommand = defineCommand({
  name: 'net',
  usage:
    'airlock net rules list | rules add (--agent A | --role R | --global) allow|deny|ask <host>[:port] | rules rm <id> | hosts list | hosts add <name> <ip> | hosts rm <name>  [--json] [--home DIR]',
  options: { agent: 'text', role: 'text', global: 'flag' },
  async run({ options, positionals }, io) {
    const [group, action, ...args] = positionals
    if (group === 'rules') return rules(action, args, options, io)
    if (group === 'hosts') {
      if (options.agent !== undefined || options.role !== undefined || options.global)
        throw new UsageError('--agent, --role and --global are for net rules add')
      return hosts(action, args, options, io)
    }
    throw new UsageError(`net takes rules or hosts${group ? `, not ${JSON.stringify(group)}` : ''}`)
  }
})

type Options = { agent?: string; role?: string; global?: boolean; json?: boolean; home?: string }

function rules(action: string | undefined, args: string[], options: Options, io: CommandIo): Promise<number> {
  if (action === 'list') {
    if (args.length > 0) throw new UsageError('net rules list takes no argument')
    return withStore(options.home, (store) => printRules(store.network.rules(), options.json === true, io))
  }
  if (action === 'add') {
    if (args.length !== 2) throw new UsageError('net rules add needs a decision and a host: allow|deny|ask <host or *.suffix>[:port]')
    if ([options.agent !== undefined, options.role !== undefined, options.global === true].filter(Boolean).length !== 1)
      throw new UsageError('net rules add needs exactly one of --agent A, --role R or --global')
    const target = parseRuleTarget(args[1]!)
    if ('error' in target) throw new UsageError(target.error)
    const input = netRuleInputSchema.safeParse({
      agentId: options.agent ?? null,
      ...(options.role !== undefined ? { roleId: options.role } : {}),
      decision: args[0],
      ...target
    })
    if (!input.success) throw new UsageError(input.error.issues.map((issue) => `${issue.path.join('.') || 'rule'}: ${issue.message}`).join('; '))
    return withStore(options.home, (store) => {
      if (input.data.agentId !== null && !store.agents.get(input.data.agentId)) throw new CliError('not_found', `There is no agent ${input.data.agentId}.`)
      if (input.data.roleId !== undefined && !store.roles.get(input.data.roleId)) throw new CliError('not_found', `There is no role ${input.data.roleId}.`)
      const rule = store.network.addRule(input.data)
      io.out(options.json ? visibleJson(rule) : visibleText(`Added ${describe(rule)}`))
      return 0
    })
  }
  if (action === 'rm') {
    if (args.length !== 1) throw new UsageError('net rules rm needs the rule id (see airlock net rules list)')
    return withStore(options.home, (store) => {
      if (!store.network.removeRule(args[0]!)) throw new CliError('not_found', `There is no network rule ${JSON.stringify(args[0]!.slice(0, 64))}.`)
      io.out(options.json ? visibleJson({ removed: args[0] }) : visibleText(`Removed network rule ${args[0]}`))
      return 0
    })
  }
  throw new UsageError(`net rules takes list, add or rm${action ? `, not ${JSON.stringify(action)}` : ''}`)
}

function hosts(action: string | undefined, args: string[], options: Options, io: CommandIo): Promise<number> {
  if (action === 'list') {
    return withStore(options.home, (store) => {
      const pinned = store.network.hosts()
      if (options.json) io.out(visibleJson(pinned))
      else if (pinned.length === 0) io.out('No pinned names: the egress proxy asks DNS.')
      else for (const host of pinned) io.out(visibleText(`${host.name}  ${host.address}`))
      return 0
    })
  }
  if (action === 'add') {
    if (args.length !== 2) throw new UsageError('net hosts add needs a name and an address: <name> <ip>')
    const input = netHostInputSchema.safeParse({ name: args[0]!.toLowerCase(), address: args[1] })
    if (!input.success) throw new UsageError(input.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '))
    return withStore(options.home, (store) => {
      const host = store.network.addHost(input.data)
      io.out(options.json ? visibleJson(host) : visibleText(`Pinned ${host.name} to ${host.address}`))
      return 0
    })
  }
  if (action === 'rm') {
    if (args.length !== 1) throw new UsageError('net hosts rm needs the name')
    return withStore(options.home, (store) => {
      if (!store.network.removeHost(args[0]!.toLowerCase())) throw new CliError('not_found', `No pinned name ${JSON.stringify(args[0]!.slice(0, 64))}.`)
      io.out(options.json ? visibleJson({ removed: args[0] }) : visibleText(`Unpinned ${args[0]}`))
      return 0
    })
  }
  throw new UsageError(`net hosts takes list, add or rm${action ? `, not ${JSON.stringify(action)}` : ''}`)
}

function printRules(list: NetRule[], json: boolean, io: CommandIo): number {
  if (json) io.out(visibleJson(list))
  else if (list.length === 0) io.out("No network rules: a domain no rule names follows the agent's ask mode.")
  else for (const rule of list) io.out(visibleText(`${rule.id}  ${describe(rule)}`))
  return 0
}

function describe(rule: NetRule): string {
  return `${rule.decision} ${rule.host}${rule.port ? `:${rule.port}` : ''} for ${rule.agentId ? `agent ${rule.agentId}` : rule.roleId ? `every agent of role ${rule.roleId}` : 'every agent'}`
}

function withStore<T>(home: string | undefined, use: (store: CliContext['store']) => T): Promise<T> {
  const missing = ({ database }: { database: string }) =>
    new CliError('not_found', `no Airlock database at ${database} (start Airlock once, or check --home / AIRLOCK_HOME)`)
  return withCliContext({ home, missing }, (cli) => use(cli.store))
}
