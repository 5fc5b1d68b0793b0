import { historyStatuses, historyStatusSchema, type HistoryRow } from '@shared/ipc/history'
import { z } from 'zod'
import { historyQueryMaxLimit, type HistoryService } from '../../console/history-service'
import { withCliContext } from '../../host/cli-context'
import { defineCommand } from '../command'
import { CliError, UsageError } from '../cli-error'
import { visibleJson, visibleText } from '@shared/visible-text'

/** How many calls `airlock history` prints without --limit. */
export const defaultHistoryLimit = 50

const limitSchema = z
  .string()
  .regex(/^\d{1,9}$/)
  .transform(Number)
  .pipe(z.number().int().min(1).max(historyQueryMaxLimit))

/** `airlock history`: the newest calls, filtered (SPEC §8.1); one line each, or `--json` rows (with their lineage). */
export const historyCommand = defineCommand({
  name: 'history',
  usage: `airlock history [--agent A] [--tool T] [--status S] [--limit N (1-${historyQueryMaxLimit}, default ${defaultHistoryLimit})] [--json] [--home DIR]`,
  options: { agent: 'text', tool: 'text', status: 'text', limit: 'text' },
  async run({ options, positionals }, io) {
    if (positionals.length > 0) throw new UsageError(`history takes no arguments, got ${positionals[0]}`)
    const status = options.status === undefined ? undefined : historyStatusSchema.safeParse(options.status)
    if (status && !status.success) throw new UsageError(`--status must be one of ${historyStatuses.join(', ')}, got ${JSON.stringify(options.status)}`)
    const limit = options.limit === undefined ? undefined : limitSchema.safeParse(options.limit)
    if (limit && !limit.success) throw new UsageError(`--limit must be a whole number from 1 to ${historyQueryMaxLimit}, got ${JSON.stringify(options.limit)}`)
    const page = await withHistory(options.home, (history) => {
      const listed = history.list({ agentId: options.agent, tool: options.tool, status: status?.data, limit: limit?.data ?? defaultHistoryLimit })
      // --json rows carry each call's lineage too: the endpoints it reached through the egress proxy.
      return options.json ? { rows: listed.rows.map((row) => ({ ...row, lineage: history.detail(row.id).lineage })) } : listed
    })
    if (options.json) io.out(visibleJson(page.rows))
    else if (page.rows.length === 0) io.out('No calls match.')
    else for (const row of page.rows) io.out(historyLine(row))
    return 0
  }
})

/** One call as one line: when, how it ended, who, what, where it ran, exit code, duration, id, and the error if any. */
export function historyLine(row: HistoryRow): string {
  const fields = [
    row.startedAt,
    row.status.padEnd(17),
    row.agentId ?? '-',
    row.tool,
    row.providerId ?? '-',
    `exit=${row.exitCode ?? '-'}`,
    row.durationMs === null ? '-' : `${row.durationMs}ms`,
    row.id
  ]
  if (row.error) fields.push(`${row.error.code}: ${row.error.message.replace(/\s+/g, ' ').slice(0, 200)}`)
  // Tool names and error messages carry agent text: control and bidi characters are shown, not obeyed.
  return visibleText(fields.join('  '))
}

/**
 * Opens the store of a home just for one read of history and closes it. A home without a database
 * is an error, not an empty history: creating one would hide a mistyped --home.
 */
export function withHistory<T>(home: string | undefined, use: (history: HistoryService) => T): Promise<T> {
  const missing = ({ database }: { database: string }) =>
    new CliError('not_found', `no Airlock database at ${database}: nothing was recorded on this home (check --home or AIRLOCK_HOME)`)
  return withCliContext({ home, missing }, (cli) => use(cli.history))
}
