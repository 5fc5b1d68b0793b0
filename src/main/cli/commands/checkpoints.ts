import { agentIdSchema } from '@shared/agents'
import { visibleJson, visibleText } from '@shared/visible-text'
import { z } from 'zod'
import { CheckpointError, type WorkspaceCheckpoints } from '../../console/checkpoints'
import { withCliContext } from '../../host/cli-context'
import { defineCommand, type CommandIo } from '../command'
import { CliError, UsageError } from '../cli-error'
import { parseValue } from '../parse-args'

const idSchema = z.string().regex(/^[0-9a-f-]{8,64}$/, 'must be a call id or checkpoint id')
const limitSchema = z
  .string()
  .regex(/^\d{1,6}$/)
  .transform(Number)
  .pipe(z.number().int().min(1).max(100_000))

/**
 * `airlock checkpoints list --agent A [--limit N] [--json]`, `checkpoints diff <call>`,
 * `checkpoints revert <call>`, `checkpoints restore --before <call>` (issue 28): an agent's
 * workspace checkpoints from a terminal, on the home's database and content store. A revert or
 * restore here is the same as the console's: refused with the files named on a conflict, recorded
 * as a history row of the operator's and as a checkpoint, and told to the agent at its next call
 * (a running console reads it from the database).
 */
export const checkpointsCommand = defineCommand({
  name: 'checkpoints',
  usage:
    'airlock checkpoints list --agent A [--limit N] [--json] | checkpoints diff <call> [--json] | checkpoints revert <call> | checkpoints restore --before <call>  [--home DIR]',
  options: { agent: 'text', limit: 'text', before: 'text' },
  async run({ options, positionals }, io) {
    const [action, id, ...rest] = positionals
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
    if (action === 'list') {
      if (id !== undefined) throw new UsageError('checkpoints list takes --agent A, not an argument')
      const agentId = parseValue(agentIdSchema, options.agent, '--agent')
      const limit = options.limit === undefined ? 50 : parseValue(limitSchema, options.limit, '--limit')
      return withCheckpoints(options.home, (checkpoints) => printList(checkpoints, agentId, limit, options.json === true, io))
    }
    if (action === 'diff') {
      const target = parseValue(idSchema, id, 'the call id')
      return withCheckpoints(options.home, (checkpoints) => {
        const described = checkpoints.describe(target, Number.MAX_SAFE_INTEGER)
        if (!described) throw new CliError('not_found', `no checkpoint for ${target}: the call changed no file, or its checkpoint was never taken`)
        if (options.json) io.out(visibleJson(described))
        else {
          io.out(
            visibleText(
              `${described.checkpoint.kind} ${described.checkpoint.callId ?? described.checkpoint.id}  ${described.checkpoint.createdAt}  ${described.checkpoint.files} entries`
            )
          )
          for (const file of described.files) {
            io.out(visibleText(`${file.change.padEnd(8)} ${file.path}${file.note ? `  (${file.note})` : ''}`))
            if (file.diff) for (const line of file.diff.split('\n').slice(2)) io.out(visibleText(line))
          }
        }
        return 0
      })
    }
    if (action === 'revert' || action === 'restore') {
      if (action === 'restore' && id !== undefined) throw new UsageError('checkpoints restore takes --before <call>, not an argument')
      if (action === 'revert' && options.before !== undefined) throw new UsageError('--before is only for checkpoints restore')
      const target = parseValue(idSchema, action === 'revert' ? id : options.before, action === 'revert' ? 'the call id' : '--before')
      return withCheckpoints(options.home, async (checkpoints) => {
        const done = action === 'revert' ? await checkpoints.revert(target) : await checkpoints.restoreBefore(target)
        if (options.json) io.out(visibleJson({ files: done.files, checkpointId: done.checkpoint?.id ?? null }))
        else
          io.out(
            `${action === 'revert' ? 'Reverted' : 'Restored to before'} ${target}: ${done.files} entries${done.checkpoint ? `; recorded as checkpoint ${done.checkpoint.id} (it can be reverted too)` : ''}.`
          )
        return 0
      })
    }
    throw new UsageError(`checkpoints takes list, diff, revert or restore${action ? `, not ${JSON.stringify(action)}` : ''}`)
  }
})

function printList(checkpoints: WorkspaceCheckpoints, agentId: string, limit: number, json: boolean, io: CommandIo): number {
  const listed = checkpoints.list(agentId, { limit })
  const storeBytes = checkpoints.storeBytes(agentId)
  if (json) {
    io.out(visibleJson({ agentId, storeBytes, checkpoints: listed }))
    return 0
  }
  if (listed.length === 0) io.out(`No checkpoints for ${agentId} yet.`)
  for (const record of listed) {
    const fields = [record.createdAt, record.kind.padEnd(7), record.callId ?? record.id, `files=${record.files}`, `new=${record.newBytes}B`]
    if (record.prunedAt) fields.push(`pruned ${record.prunedAt}`)
    if (record.note) fields.push(record.note)
    io.out(visibleText(fields.join('  ')))
  }
  io.out(`Store: ${(storeBytes / (1024 * 1024)).toFixed(1)} MiB for ${agentId}.`)
  return 0
}

/** Opens the home's store and content store for one command; a checkpoint refusal becomes a CLI error with its message. */
async function withCheckpoints<T>(home: string | undefined, use: (checkpoints: WorkspaceCheckpoints) => T | Promise<T>): Promise<T> {
  const missing = ({ database }: { database: string }) => new CliError('not_found', `no Airlock database at ${database} (check --home or AIRLOCK_HOME)`)
  try {
    return await withCliContext({ home, missing }, (cli) => use(cli.checkpoints))
  } catch (error) {
    if (error instanceof CheckpointError) throw new CliError(error.code === 'checkpoint.not_found' ? 'not_found' : 'conflict', error.message)
    throw error
  }
}
