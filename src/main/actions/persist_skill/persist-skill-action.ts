import { z } from 'zod'
import { bundlePathSchema, codeLanguageSchema } from '@shared/code-execution'
import { skillDescriptionSchema, skillIdOf, skillInputsSchema, skillNameSchema, type SkillState } from '@shared/skills'
import type { ActionSpec } from '../../core/action-runtime'
import { pathProblem } from '../../files/workspace'
import {
  renderSkillDocument,
  skillActionOutcome,
  skillContentHash,
  skillDocument,
  skillLimits,
  skillManifest,
  writeSkillFolder,
  type SkillFile,
  type SkillFrontMatter,
  type SkillLedger
} from '../../files/skills'

const base64 = /^[A-Za-z0-9+/]*={0,2}$/

/** A skill file as the agent gives it: a path inside the skill folder and its content (UTF-8 text, or base64). */
const skillFileInputSchema = z
  .object({
    path: bundlePathSchema
      .superRefine((path, context) => {
        const problem = pathProblem(path, 'file')
        if (problem) context.addIssue({ code: 'custom', message: problem })
        if (path === skillDocument)
          context.addIssue({ code: 'custom', message: `${skillDocument} is written by Airlock from name, description, entry, language and inputs` })
      })
      .describe('A path relative to the skill folder skills/<name>/ (no absolute paths, no ..).'),
    content: z.string(),
    encoding: z.enum(['utf8', 'base64']).optional().describe('utf8 (default) or base64 for binary content.')
  })
  .strict()

/** The input of `persist_skill`: the skill's name, what it does, how it runs, and its files. */
export const persistSkillInputSchema = z
  .object({
    name: skillNameSchema.describe('The skill name (a slug): its folder is skills/<name>/.'),
    description: skillDescriptionSchema.describe('What the skill does, for the operator who approves it and for you later.'),
    entry: bundlePathSchema.describe('The file to run, one of files.'),
    language: codeLanguageSchema,
    inputs: skillInputsSchema.optional().describe('A JSON-schema-like description of the arguments (shown to the operator; not enforced).'),
    files: z
      .array(skillFileInputSchema)
      .min(1)
      .max(skillLimits.maxFiles - 1)
  })
  .strict()
  .superRefine((input, context) => {
    const seen = new Set<string>()
    let total = 0
    for (const [index, file] of input.files.entries()) {
      if (seen.has(file.path)) context.addIssue({ code: 'custom', path: ['files', index, 'path'], message: `${file.path} appears twice` })
      seen.add(file.path)
      if (file.encoding === 'base64' && !base64.test(file.content))
        context.addIssue({ code: 'custom', path: ['files', index, 'content'], message: 'is not base64' })
      const bytes = file.encoding === 'base64' ? Math.floor((file.content.length * 3) / 4) : Buffer.byteLength(file.content, 'utf8')
      if (bytes > skillLimits.maxFileBytes)
        context.addIssue({
          code: 'custom',
          path: ['files', index, 'content'],
          message: `is ${bytes} bytes; a skill file may have at most ${skillLimits.maxFileBytes}`
        })
      total += bytes
    }
    if (total > skillLimits.maxTotalBytes)
      context.addIssue({ code: 'custom', path: ['files'], message: `add up to ${total} bytes; a skill may have at most ${skillLimits.maxTotalBytes}` })
    if (!seen.has(input.entry)) context.addIssue({ code: 'custom', path: ['entry'], message: `${input.entry} is not one of the files` })
  })

/** What `persist_skill` returns in `data` (SPEC §5.3): the skill, the revision its content is, and that revision's state. */
export type PersistSkillData = { skillId: string; revision: number; state: SkillState }

/**
 * `persist_skill` (SPEC §6.4): writes `skills/<name>/SKILL.md` (front matter written by Airlock)
 * and the files into the agent's workspace, leaving nothing else in that folder, and records the
 * content as a revision `pending_approval` through `ledger`. The same content as a revision that
 * waits or was approved is that revision again, not a new one. A language outside the agent's
 * runtimes is refused: it could never run.
 */
export function createPersistSkillAction(ledger: SkillLedger): ActionSpec<typeof persistSkillInputSchema> {
  return {
    name: 'persist_skill',
    description:
      'Save a reusable program as a skill in skills/<name>/ of your workspace (SKILL.md is written for you). The operator must approve it before run_skill runs it; ' +
      'saving changed content makes a new revision that waits for approval again. Returns skillId, revision and state.',
    inputSchema: persistSkillInputSchema,
    effects: 'write',
    summarize: (input) => `persist_skill ${input.name} (${input.language} ${input.entry}, ${input.files.length} file${input.files.length === 1 ? '' : 's'})`,
    executor: {
      execute: ({ input, agent, signal }) =>
        skillActionOutcome(async () => {
          const runtimes = agent.profile.runtimes
          if (runtimes.length > 0 && !runtimes.includes(input.language)) {
            const policy = {
              decision: 'deny',
              rule: 'runtime.not_allowed',
              reason: `${input.language} is not among the agent's runtimes (${runtimes.join(', ')})`
            }
            return { status: 'blocked', meta: { policy }, error: { code: 'policy.runtime_not_allowed', message: `persist_skill: ${policy.reason}.` } }
          }
          const front: SkillFrontMatter = {
            name: input.name,
            description: input.description,
            entry: input.entry,
            language: input.language,
            ...(input.inputs ? { inputs: input.inputs } : {})
          }
          const files: SkillFile[] = [
            ...input.files.map((file) => ({ path: file.path, bytes: Buffer.from(file.content, file.encoding ?? 'utf8') })),
            { path: skillDocument, bytes: renderSkillDocument(front) }
          ]
          await writeSkillFolder({ workspace: agent.workspace, diskMb: agent.profile.limits.diskMb, name: input.name, files, signal })
          const contentHash = skillContentHash(files)
          const { revision, created } = ledger.propose(agent.agentId, input.name, { contentHash, manifest: skillManifest(front, files) })
          const data: PersistSkillData = { skillId: skillIdOf(agent.agentId, input.name), revision: revision.revision, state: revision.state }
          const diagnostics = [
            created
              ? `recorded as revision ${revision.revision}; it waits for the operator's approval before run_skill runs it`
              : `the same content is revision ${revision.revision} (${revision.state.replace('_', ' ')}); no new revision`
          ]
          return { data, meta: { skill: { ...data, contentHash } }, diagnostics }
        }, signal)
    }
  }
}
