import { z } from 'zod'
import { agentIdSchema } from './agents'
import { bundlePathSchema, codeLanguageSchema } from './code-execution'

/**
 * Skills (SPEC §6.4): programs an agent saves in `skills/<name>/` of its workspace and the operator
 * approves before they run. The shapes here are what the store keeps of each revision (the truth:
 * the workspace copy is writable by the agent) and what the console shows.
 */

/** A skill's name: a slug, also its folder under `skills/`. */
export const skillNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a slug: lowercase letters, digits and -, at most 63 characters, starting with a letter or digit')

/** The states of a revision: `pending_approval → approved | rejected`; a decided revision never changes again. */
export const skillStates = ['pending_approval', 'approved', 'rejected'] as const

/** A revision's state. */
export const skillStateSchema = z.enum(skillStates)

/** A revision's state. */
export type SkillState = z.infer<typeof skillStateSchema>

/** The most a skill's `inputs` description may take once serialised as JSON. */
export const skillInputsMaxBytes = 16 * 1024

/** What a skill declares about its arguments: a JSON object (JSON-schema-like), shown to the operator, never enforced. */
export const skillInputsSchema = z
  .record(z.string(), z.json())
  .refine((value) => JSON.stringify(value).length <= skillInputsMaxBytes, `must be at most ${skillInputsMaxBytes} characters as JSON`)

/** A skill's description: one line or a paragraph of text. */
export const skillDescriptionSchema = z.string().trim().min(1, 'must not be empty').max(2000)

/** One file of a revision as recorded: its path in the skill folder, its size and sha256 (hex). */
export const skillFileRecordSchema = z
  .object({ path: bundlePathSchema, bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })
  .strict()

/** What the store keeps of one revision besides its hash: the front matter that runs it and its files (SKILL.md included). */
export const skillManifestSchema = z
  .object({
    description: skillDescriptionSchema,
    entry: bundlePathSchema,
    language: codeLanguageSchema,
    inputs: skillInputsSchema.optional(),
    files: z.array(skillFileRecordSchema).min(1)
  })
  .strict()

/** A revision's manifest. */
export type SkillManifest = z.infer<typeof skillManifestSchema>

/** A skill's content hash: `sha256:` and 64 hex digits (see src/main/files/skills/skill-content.ts for the encoding). */
export const skillContentHashSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/)

/** One revision as the console shows it. */
export const skillRevisionViewSchema = z.object({
  revision: z.number().int().min(1),
  state: skillStateSchema,
  contentHash: skillContentHashSchema,
  description: z.string(),
  entry: z.string(),
  language: codeLanguageSchema,
  inputs: z.record(z.string(), z.unknown()).nullable(),
  files: z.array(z.object({ path: z.string(), bytes: z.number().int(), sha256: z.string() })),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
  /** Why it was rejected (the operator's words), null otherwise. */
  reason: z.string().nullable()
})

/** One revision as shown. */
export type SkillRevisionView = z.infer<typeof skillRevisionViewSchema>

/**
 * One skill of an agent: `skillId` is `<agentId>/<name>` (stable across revisions), its revisions
 * newest first, and which one may run (`approvedRevision`, the newest approved; null when none).
 */
export const skillViewSchema = z.object({
  skillId: z.string(),
  agentId: agentIdSchema,
  name: skillNameSchema,
  approvedRevision: z.number().int().nullable(),
  revisions: z.array(skillRevisionViewSchema).min(1)
})

/** One skill as shown. */
export type SkillView = z.infer<typeof skillViewSchema>

/** What happened to a skill: a revision was recorded (waits), approved or rejected. */
export const skillChangeSchema = z.enum(['proposed', 'approved', 'rejected'])

/** What happened to a skill. */
export type SkillChange = z.infer<typeof skillChangeSchema>

/** The `skills.changed` event: which revision of which agent's skill changed and how. */
export const skillChangedEventSchema = z.object({ agentId: z.string(), name: z.string(), revision: z.number().int(), change: skillChangeSchema })

/** The `skills.changed` event's payload. */
export type SkillChangedEvent = z.infer<typeof skillChangedEventSchema>

/** The id of a skill (all its revisions): `<agentId>/<name>`. */
export function skillIdOf(agentId: string, name: string): string {
  return `${agentId}/${name}`
}

/** One recorded revision of a skill, as the skill actions read it from their port. */
export type SkillRevisionRecord = {
  /** `<agentId>/<name>`: the skill, whatever the revision. */
  skillId: string
  agentId: string
  name: string
  revision: number
  contentHash: string
  state: SkillState
  manifest: SkillManifest
  createdAt: string
  decidedAt: string | null
  reason: string | null
}

/** What a revision is made of when it is proposed: its content hash and its manifest (description, entry, language, files). */
export type SkillProposal = { contentHash: string; manifest: SkillManifest }
