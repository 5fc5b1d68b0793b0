import { z } from 'zod'
import type { CodeExecutionRequest } from '@shared/code-execution'
import { bundleLimits } from '@shared/code-execution'
import { skillIdOf, skillNameSchema } from '@shared/skills'
import type { ActionContext, ActionOutcome, ActionSpec } from '../../core/action-runtime'
import { runCodeAction } from '../run_code'
import {
  assertRunnable,
  parseSkillDocument,
  readSkillFolder,
  skillActionOutcome,
  skillContentHash,
  skillDocument,
  skillManifest,
  SkillError,
  type SkillFile,
  type SkillLedger,
  type SkillRevisionRecord
} from '../skill-files'

/** The input of `run_skill`: which skill, and the arguments its entry gets. */
export const runSkillInputSchema = z
  .object({
    name: skillNameSchema.describe('The skill to run (its folder is skills/<name>/).'),
    args: z
      .array(z.string().refine((arg) => !arg.includes('\0'), 'argument contains NUL'))
      .max(bundleLimits.maxArgs)
      .optional()
      .describe('Arguments given to the entry program.')
  })
  .strict()

/**
 * `run_skill` (SPEC §6.4): runs an approved skill. The skill folder is read once into memory (no
 * link followed, sizes bounded: see skill-folder.ts) and hashed; those same bytes are what runs,
 * so nothing can be swapped between the check and the run. Content that matches no recorded
 * revision (a file edited, added or removed, a SKILL.md that now claims another entry) is recorded
 * as a new revision that waits, and the call is refused; a matching revision runs only when it is
 * `approved`, with the entry and language of its manifest in the store (never what the workspace
 * SKILL.md says), through `run_code`'s path (the agent's provider order, isolation, limits, runtimes
 * and the session's code resource).
 */
export function createRunSkillAction(ledger: SkillLedger): ActionSpec<typeof runSkillInputSchema> {
  return {
    name: 'run_skill',
    description:
      'Run one of your skills (saved with persist_skill) with args, sandboxed. Only a skill whose current content the operator approved runs; ' +
      'if its files changed since, the new content is recorded and waits for approval. Returns stdout, stderr and exitCode like run_code.',
    inputSchema: runSkillInputSchema,
    effects: 'execute',
    summarize: (input) => `run_skill ${input.name}${input.args?.length ? ` ${input.args.join(' ')}` : ''}`,
    executor: { execute: (context) => skillActionOutcome(() => runSkill(ledger, context), context.signal) }
  }
}

async function runSkill(ledger: SkillLedger, context: ActionContext<z.output<typeof runSkillInputSchema>>): Promise<ActionOutcome> {
  const { input, agent, signal } = context
  const files = await readSkillFolder(agent.workspace, input.name, signal)
  const contentHash = skillContentHash(files)
  const revisions = ledger.revisions(agent.agentId, input.name)
  const match = revisions.find((revision) => revision.contentHash === contentHash)
  if (!match) throw refusal(propose(ledger, agent.agentId, input.name, files, contentHash), revisions)
  if (match.state !== 'approved') throw refusal(match, revisions)
  const { manifest } = match
  const request: CodeExecutionRequest = {
    language: manifest.language,
    entrypoint: manifest.entry,
    files: files.map((file) => ({ path: file.path, content: file.bytes.toString('base64'), encoding: 'base64' })),
    args: input.args ?? []
  }
  const outcome = await runCodeAction.executor.execute({ ...context, input: request })
  const skill = { skillId: match.skillId, revision: match.revision, contentHash }
  return { ...outcome, meta: { ...outcome.meta, skill } }
}

/** Records content no revision has as the next revision (it waits); a SKILL.md that cannot run it is refused instead. */
function propose(ledger: SkillLedger, agentId: string, name: string, files: SkillFile[], contentHash: string): SkillRevisionRecord {
  const document = files.find((file) => file.path === skillDocument)
  if (!document) throw new SkillError('invalid_manifest', `skills/${name} has no ${skillDocument}. Save the skill again with persist_skill.`, { skillId: skillIdOf(agentId, name) })
  const front = parseSkillDocument(document.bytes)
  if (front.name !== name) throw new SkillError('invalid_manifest', `${skillDocument}: name says ${front.name}, but the folder is skills/${name}.`, { skillId: skillIdOf(agentId, name) })
  assertRunnable(front, files)
  return ledger.propose(agentId, name, { contentHash, manifest: skillManifest(front, files) }).revision
}

/** Why the content found cannot run: the revision it is waits (or was rejected); names the approved one it differs from, if any. */
function refusal(revision: SkillRevisionRecord, earlier: readonly SkillRevisionRecord[]): SkillError {
  const payload = { skillId: revision.skillId, revision: revision.revision, state: revision.state, contentHash: revision.contentHash }
  const label = `Skill ${revision.name} revision ${revision.revision}`
  if (revision.state === 'rejected') {
    return new SkillError('rejected', `${label} was rejected by the operator${revision.reason ? `: ${revision.reason}` : ''}. Change the skill and save it again with persist_skill.`, payload)
  }
  const approved = earlier.find((other) => other.state === 'approved' && other.revision !== revision.revision)
  const why = approved ? ` (its files differ from revision ${approved.revision}, which was approved)` : ''
  return new SkillError('not_approved', `${label} waits for the operator's approval${why}; run_skill runs it once it is approved.`, payload)
}
