import { defineCommand } from '../command'
import { CliError } from '../cli-error'

/** `airlock audit` (SPEC §8.1). */
export const auditCommand = defineCommand({
  name: 'audit',
  summary: 'Verify the history hash chain',
  usage: 'airlock audit',
  options: {},
  async run() {
    throw new CliError('not_built', 'audit is being built')
  }
})
