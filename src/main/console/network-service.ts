import { AirlockError } from '@shared/errors'
import type { NetHost, NetRule, NetRuleInput } from '@shared/network'
import type { AgentRepository, NetworkRepository, RoleRepository } from '../store'

/** Why a network rule or pinned name change was refused. */
export class NetworkError extends AirlockError<'network.not_found'> {}

/**
 * The egress proxy's rules and pinned names for consoles (SPEC §6.5): the repository's data, an
 * agent or role checked to exist before a rule names it, and a change event so every console refreshes.
 */
export class NetworkService {
  constructor(
    private readonly options: { network: NetworkRepository; agents: AgentRepository; roles: RoleRepository; onChange?: (what: 'rules' | 'hosts') => void }
  ) {}

  rules(): NetRule[] {
    return this.options.network.rules()
  }

  addRule(input: NetRuleInput): NetRule {
    if (input.agentId !== null && !this.options.agents.get(input.agentId)) throw new NetworkError('network.not_found', `There is no agent ${input.agentId}.`)
    if (input.roleId !== undefined && !this.options.roles.get(input.roleId)) throw new NetworkError('network.not_found', `There is no role ${input.roleId}.`)
    const rule = this.options.network.addRule(input)
    this.options.onChange?.('rules')
    return rule
  }

  removeRule(id: string): { removed: string } {
    if (!this.options.network.removeRule(id)) throw new NetworkError('network.not_found', `There is no network rule ${JSON.stringify(id.slice(0, 64))}.`)
    this.options.onChange?.('rules')
    return { removed: id }
  }

  hosts(): NetHost[] {
    return this.options.network.hosts()
  }

  addHost(input: NetHost): NetHost {
    const host = this.options.network.addHost({ ...input, name: input.name.toLowerCase() })
    this.options.onChange?.('hosts')
    return host
  }

  removeHost(name: string): { removed: string } {
    if (!this.options.network.removeHost(name.toLowerCase()))
      throw new NetworkError('network.not_found', `No pinned name ${JSON.stringify(name.slice(0, 64))}.`)
    this.options.onChange?.('hosts')
    return { removed: name }
  }
}
