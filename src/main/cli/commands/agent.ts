import { defineCommand } from '../command'
import { CliError } from '../cli-error'

/** `airlock agent` (SPEC §8.1). */
export const agentCommand = defineCommand({
  name: 'agent',
  summary: 'Create, list and remove agents',
  usage: 'airlock agent',
  options: {},
  async run() {
    throw new CliError('not_built', 'agent is being built')
  }
})
