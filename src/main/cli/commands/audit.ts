import { defineCommand } from '../command'
import { CliError, UsageError } from '../cli-error'
import { withHistory } from './history'

/**
 * `airlock audit verify` (SPEC §8.1, §10): walks the history hash chain, re-hashing every row and
 * log file. Intact: exit 0 and `chain ok: N rows`. Broken: exit 1 and one line naming the first
 * broken row (seq and id) and why. `--json` also prints the result (with the head hash to anchor).
 */
export const auditCommand = defineCommand({
  name: 'audit',
  summary: 'Verify the history hash chain (audit verify)',
  usage: 'airlock audit verify [--json] [--home DIR]',
  options: {},
  async run({ options, positionals }, io) {
    const [action, ...rest] = positionals
    if (action !== 'verify') throw new UsageError(action === undefined ? 'audit needs verify' : `unknown audit action ${JSON.stringify(action)} (audit takes verify)`)
    if (rest.length > 0) throw new UsageError(`audit verify takes no arguments, got ${rest[0]}`)
    const result = withHistory(options.home, (history) => history.verify())
    if (options.json) io.out(JSON.stringify(result, null, 2))
    if (result.ok) {
      if (!options.json) io.out(`chain ok: ${result.rows} rows`)
      return 0
    }
    const at = result.brokenAt!
    throw new CliError('chain_broken', `chain broken at seq ${at.seq}${at.id === null ? '' : ` (call ${at.id})`}: ${result.reason}`)
  }
})
