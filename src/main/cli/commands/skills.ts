import { agentIdSchema } from '@shared/agents'
import { skillNameSchema, type SkillView } from '@shared/skills'
import { visibleJson } from '@shared/visible-text'
import { SkillDecisionError, type SkillService } from '../../console/skill-service'
import { withCliContext } from '../../host/cli-context'
import { defineCommand, type CommandIo } from '../command'
import { CliError, UsageError } from '../cli-error'
import { parseValue } from '../parse-args'

/**
 * `airlock skills list --agent A [--json]`, `airlock skills approve <agent>/<name> <revision>`,
 * `airlock skills reject <agent>/<name> <revision> --reason TEXT`: the operator's side of skills
 * (SPEC §6.4) from a terminal, on the home's database (a running console sees the decision at the
 * agent's next `run_skill`, which reads the store). The console's `skills` contract does the same.
 */
export const skillsCommand = defineCommand({
  name: 'skills',
  usage:
    'airlock skills list --agent A [--json] | skills approve <agent>/<name> <revision> | skills reject <agent>/<name> <revision> --reason TEXT  [--home DIR]',
  options: { agent: 'text', reason: 'text' },
  async run({ options, positionals }, io) {
    const [action, skill, revisionText, ...rest] = positionals
    if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}`)
    if (action === 'list') {
      if (skill !== undefined) throw new UsageError('skills list takes --agent A, not an argument')
      const agentId = parseValue(agentIdSchema, options.agent, '--agent')
      return withSkills(options.home, (skills) => printList(skills.list(agentId), options.json === true, io))
    }
    if (action !== 'approve' && action !== 'reject')
      throw new UsageError(`skills takes list, approve or reject${action ? `, not ${JSON.stringify(action)}` : ''}`)
    const [agentText, name] = (skill ?? '').split('/')
    const agentId = parseValue(agentIdSchema, agentText, 'the skill id (<agent>/<name>)')
    const skillName = parseValue(skillNameSchema, name, 'the skill id (<agent>/<name>)')
    if (!revisionText || !/^[1-9]\d{0,8}$/.test(revisionText)) throw new UsageError(`skills ${action} needs a revision number after the skill id`)
    if (action === 'reject' && !options.reason?.trim()) throw new UsageError('skills reject needs --reason TEXT (the agent is told it)')
    if (action === 'approve' && options.reason !== undefined) throw new UsageError('--reason is only for skills reject')
    const revision = Number(revisionText)
    const decided = await withSkills(options.home, (skills) =>
      action === 'approve' ? skills.approve(agentId, skillName, revision) : skills.reject(agentId, skillName, revision, options.reason!.trim())
    )
    io.out(options.json ? visibleJson(decided) : `Skill ${agentId}/${skillName} revision ${revision} is ${decided.state} (${decided.contentHash}).`)
    return 0
  }
})

async function withSkills<T>(home: string | undefined, use: (skills: SkillService) => T): Promise<T> {
  const missing = ({ database }: { database: string }) => new CliError('not_found', `no Airlock database at ${database} (check --home or AIRLOCK_HOME)`)
  try {
    return await withCliContext({ home, missing }, (cli) => use(cli.skills))
  } catch (error) {
    if (error instanceof SkillDecisionError) throw new CliError(error.code === 'skill.not_found' ? 'not_found' : 'conflict', error.message)
    throw error
  }
}

function printList(list: SkillView[], json: boolean, io: CommandIo): number {
  if (json) {
    io.out(visibleJson(list))
    return 0
  }
  if (list.length === 0) {
    io.out('No skills yet: an agent saves one with persist_skill.')
    return 0
  }
  for (const skill of list) {
    io.out(`${skill.skillId}  approved: ${skill.approvedRevision ?? '-'}`)
    for (const revision of skill.revisions) {
      io.out(
        `  revision ${revision.revision}  ${revision.state.padEnd(16)}  ${revision.language} ${revision.entry}  ${revision.files.length} files  ${revision.contentHash}${revision.reason ? `  (${revision.reason})` : ''}`
      )
    }
  }
  return 0
}
