import { z } from 'zod'
import { bundleLimits, type CodeExecutionRequest } from '@shared/code-execution'
import { skillIdOf, skillNameSchema } from '@shared/skills'
import type { ActionContext, ActionOutcome, ActionSpec } from '../../core/action-runtime'
import { previewCode, runCodeAction } from '../run_code'
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
} from '../../files/skills'
import { askForRevision, type SkillApprovalRecord } from './skill-approval'

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
 * as a new revision that waits. A revision that waits is put before the operator in this call
 * (the approval queue, with those bytes as the preview: see skill-approval.ts) and runs once
 * approved; a rejected one is refused. What runs has the entry and language of its manifest in the
 * store (never what the workspace SKILL.md says), through `run_code`'s path (the agent's provider
 * order, isolation, limits, runtimes and the session's code resource).
 */
export function createRunSkillAction(ledger: SkillLedger): ActionSpec<typeof runSkillInputSchema> {
  return {
    name: 'run_skill',
    description:
      'Run one of your skills (saved with persist_skill) with args, sandboxed. Only content the operator approved runs: if the current content ' +
      '(new, or files changed since) is not approved yet, the call asks the operator and waits for the decision, then runs it if approved. ' +
      'Returns stdout, stderr and exitCode like run_code.',
    inputSchema: runSkillInputSchema,
    effects: 'execute',
    summarize: (input) => `run_skill ${input.name}${input.args?.length ? ` ${input.args.join(' ')}` : ''}`,
    preview: ({ input, agent }) => previewSkill(ledger, agent.agentId, agent.workspace, input),
    executor: { execute: (context) => skillActionOutcome(() => runSkill(ledger, context), context.signal) }
  }
}

async function runSkill(ledger: SkillLedger, context: ActionContext<z.output<typeof runSkillInputSchema>>): Promise<ActionOutcome> {
  const { input, agent, signal } = context
  const files = await readSkillFolder(agent.workspace, input.name, signal)
  const contentHash = skillContentHash(files)
  const revisions = ledger.revisions(agent.agentId, input.name)
  let match = revisions.find((revision) => revision.contentHash === contentHash) ?? propose(ledger, agent.agentId, input.name, files, contentHash)
  let approval: SkillApprovalRecord | undefined
  if (match.state === 'rejected') throw refusal(match, revisions)
  if (match.state === 'pending_approval') {
    // `ask: never` puts nothing before the operator: the revision is approved with `airlock skills` only.
    if (agent.profile.ask === 'never')
      throw refusal(match, revisions, "this agent's ask mode is never, so run_skill does not ask; the operator approves it with airlock skills")
    const asked = await askForRevision(ledger, context, match, files, revisions)
    if ('outcome' in asked) return asked.outcome
    match = asked.approved
    approval = asked.approval
  }
  // Whoever approved it, what runs is the approved revision's content: the bytes read above.
  if (match.state !== 'approved' || match.contentHash !== contentHash) throw refusal(match, revisions)
  const { manifest } = match
  const request: CodeExecutionRequest = {
    language: manifest.language,
    entrypoint: manifest.entry,
    files: files.map((file) => ({ path: file.path, content: file.bytes.toString('base64'), encoding: 'base64' })),
    args: input.args ?? []
  }
  const outcome = await runCodeAction.executor.execute({ ...context, input: request })
  const skill = { skillId: match.skillId, revision: match.revision, contentHash, ...(approval ? { approval } : {}) }
  return { ...outcome, meta: { ...outcome.meta, skill } }
}

/**
 * The approval queue's preview of a run: the skill's files as they are now, with the revision they
 * match (the approved content was reviewed when it was approved; the args are new), or a note that
 * no recorded revision matches (the call records one, which then asks for itself). Read-only;
 * nothing is proposed here.
 */
async function previewSkill(ledger: SkillLedger, agentId: string, workspace: string, input: z.output<typeof runSkillInputSchema>): Promise<string> {
  const files = await readSkillFolder(workspace, input.name)
  const contentHash = skillContentHash(files)
  const match = ledger.revisions(agentId, input.name).find((revision) => revision.contentHash === contentHash)
  const heading = match
    ? `skill: ${input.name} revision ${match.revision} (${match.state}, content ${contentHash.slice(0, 19)})`
    : `skill: ${input.name}: its files match no recorded revision (content ${contentHash.slice(0, 19)}); the call records them as a new revision and asks the operator to approve it before it runs`
  return previewCode(
    {
      ...(match ? { language: match.manifest.language, entrypoint: match.manifest.entry } : {}),
      files: files.map((file) => ({ path: file.path, content: file.bytes.toString('base64'), encoding: 'base64' as const })),
      args: input.args ?? []
    },
    [heading]
  )
}

/** Records content no revision has as the next revision (it waits); a SKILL.md that cannot run it is refused instead. */
function propose(ledger: SkillLedger, agentId: string, name: string, files: SkillFile[], contentHash: string): SkillRevisionRecord {
  const document = files.find((file) => file.path === skillDocument)
  if (!document)
    throw new SkillError('invalid_manifest', `skills/${name} has no ${skillDocument}. Save the skill again with persist_skill.`, {
      skillId: skillIdOf(agentId, name)
    })
  const front = parseSkillDocument(document.bytes)
  if (front.name !== name)
    throw new SkillError('invalid_manifest', `${skillDocument}: name says ${front.name}, but the folder is skills/${name}.`, {
      skillId: skillIdOf(agentId, name)
    })
  assertRunnable(front, files)
  return ledger.propose(agentId, name, { contentHash, manifest: skillManifest(front, files) }).revision
}

/** Why the content found cannot run: the revision it is waits (or was rejected); names the approved one it differs from, if any. */
function refusal(revision: SkillRevisionRecord, earlier: readonly SkillRevisionRecord[], note?: string): SkillError {
  const payload = { skillId: revision.skillId, revision: revision.revision, state: revision.state, contentHash: revision.contentHash }
  const label = `Skill ${revision.name} revision ${revision.revision}`
  if (revision.state === 'rejected') {
    return new SkillError(
      'rejected',
      `${label} was rejected by the operator${revision.reason ? `: ${revision.reason}` : ''}. Change the skill and save it again with persist_skill.`,
      payload
    )
  }
  const approved = earlier.find((other) => other.state === 'approved' && other.revision !== revision.revision)
  const why = approved ? ` (its files differ from revision ${approved.revision}, which was approved)` : ''
  return new SkillError(
    'not_approved',
    `${label} waits for the operator's approval${why}${note ? ` (${note})` : ''}; run_skill runs it once it is approved.`,
    payload
  )
}
