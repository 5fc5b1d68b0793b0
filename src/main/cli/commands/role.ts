import { existsSync, readFileSync } from 'node:fs'
import { visibleText } from '@shared/visible-text'
import { AgentError } from '../../console/agent-errors'
import { withCliContext } from '../../host/cli-context'
import { airlockPaths, resolveHome } from '../../host/paths'
import { defineCommand } from '../command'
import { CliError, UsageError } from '../cli-error'

/**
 * `airlock role list | save <id> --defaults FILE.json [--name N] | rm <id>`: roles (SPEC §6.1),
 * the defaults their agents inherit and cannot exceed, made outside the UI the way agents are. The
 * defaults file is a profile without `role`, validated with the schema the console uses; a role
 * that agents still have is not removed. Changes reach a running console within a second.
 */
export const roleCommand = defineCommand({
  name: 'role',
  usage: 'airlock role list [--json] | role save <id> --defaults FILE.json [--name N] [--json] | role rm <id>  [--home DIR]',
  options: { defaults: 'text', name: 'text' },
  async run({ options, positionals }, io) {
    const [action, id, ...extra] = positionals
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`)
    if (action === 'list' ? id !== undefined : action === 'save' || action === 'rm' ? id === undefined : true)
      throw new UsageError(`usage: ${roleCommand.usage}`)
    if (action !== 'save' && (options.defaults !== undefined || options.name !== undefined)) throw new UsageError('--defaults and --name go with role save')
    const paths = airlockPaths(resolveHome(options.home))
    if (action !== 'save' && !existsSync(paths.database)) {
      if (action === 'list') return print([], options.json === true, io)
      throw new CliError('not_found', `There is no role ${id} (no Airlock database at ${paths.home}).`)
    }
    if (action === 'save' && options.defaults === undefined) throw new UsageError('role save needs --defaults FILE.json (a profile without "role")')
    const defaults = action === 'save' ? readJson(options.defaults!) : undefined
    const missing = () => new CliError('not_found', `There is no role ${id} (no Airlock database at ${paths.home}).`)
    try {
      return await withCliContext({ home: paths.home, create: true, missing }, ({ roles }) => {
        if (action === 'list') return print(roles.list(), options.json === true, io)
        if (action === 'rm') {
          roles.remove(id!)
          io.out(`removed role ${id}`)
          return 0
        }
        const saved = roles.save({ id, ...(options.name !== undefined ? { name: options.name } : {}), defaults })
        if (options.json) io.out(JSON.stringify(saved, null, 2))
        else io.out(`saved role ${saved.id} (${saved.agentCount} agent${saved.agentCount === 1 ? '' : 's'})`)
        return 0
      })
    } catch (error) {
      if (error instanceof AgentError && error.code === 'role.invalid') throw new UsageError(error.message)
      throw error
    }
  }
})

function print(roles: { id: string; name: string; agentCount: number; defaults: unknown }[], json: boolean, io: { out(line: string): void }): number {
  if (json) {
    io.out(JSON.stringify(roles, null, 2))
    return 0
  }
  if (roles.length === 0) io.out('No roles.')
  for (const role of roles)
    io.out(
      `${visibleText(role.id)}  ${visibleText(role.name)}  ${role.agentCount} agent${role.agentCount === 1 ? '' : 's'}  ${visibleText(JSON.stringify(role.defaults))}`
    )
  return 0
}

function readJson(file: string): unknown {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read the defaults ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(`the defaults ${file} are not JSON: ${(error as Error).message}`)
  }
}
