import { defineCommand } from '../command'
import { CliError } from '../cli-error'

/** `airlock history` (SPEC §8.1). */
export const historyCommand = defineCommand({
  name: 'history',
  summary: 'Show the execution history',
  usage: 'airlock history',
  options: {},
  async run() {
    throw new CliError('not_built', 'history is being built')
  }
})
