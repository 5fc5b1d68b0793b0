import { createHash } from 'node:crypto'
import { z } from 'zod'
import { describeIssues } from '@shared/agents'
import { bundlePathSchema, codeLanguageSchema, type CodeLanguage } from '@shared/code-execution'
import { skillDescriptionSchema, skillInputsSchema, skillNameSchema, type SkillManifest } from '@shared/skills'
import { SkillError } from './skill-error'

/**
 * What a skill is made of and how it is named by one hash. A skill is the whole folder
 * `skills/<name>/`: every regular file in it, `SKILL.md` included, so any change (a file edited,
 * added or removed, a front matter that now claims another entry or language) is a new content.
 */

/** The file that describes a skill, at the root of its folder; written by `persist_skill`, never by hand. */
export const skillDocument = 'SKILL.md'

/** The workspace folder skills live in (SPEC §6.2). */
export const skillsFolder = 'skills'

/** Bounds of one skill, below those of a code bundle (SPEC §5.2): skills are small programs read whole into memory. */
export const skillLimits = { maxFiles: 256, maxFileBytes: 4 * 1024 * 1024, maxTotalBytes: 16 * 1024 * 1024, maxDepth: 16 } as const

/** One file of a skill: its path in the skill folder and its exact bytes. */
export type SkillFile = { path: string; bytes: Buffer }

/** The front matter of `SKILL.md`: what the skill is and how it runs. */
export type SkillFrontMatter = { name: string; description: string; entry: string; language: CodeLanguage; inputs?: SkillManifest['inputs'] }

const frontMatterSchema = z
  .object({
    name: skillNameSchema,
    description: skillDescriptionSchema,
    entry: bundlePathSchema,
    language: codeLanguageSchema,
    inputs: skillInputsSchema.optional()
  })
  .strict()

const hashDomain = Buffer.from('airlock-skill-content/1\0')

/**
 * The content hash of a skill: `sha256:` + hex of SHA-256 over a domain tag, then for each file in
 * byte order of its UTF-8 path: the path's length (u32 big-endian), the path, the content's length
 * (u64 big-endian), the content. Lengths first, so no two different file sets encode the same.
 */
export function skillContentHash(files: readonly SkillFile[]): string {
  const hash = createHash('sha256').update(hashDomain)
  for (const file of sortedFiles(files)) {
    const path = Buffer.from(file.path, 'utf8')
    const pathLength = Buffer.alloc(4)
    pathLength.writeUInt32BE(path.length)
    const contentLength = Buffer.alloc(8)
    contentLength.writeBigUInt64BE(BigInt(file.bytes.length))
    hash.update(pathLength).update(path).update(contentLength).update(file.bytes)
  }
  return `sha256:${hash.digest('hex')}`
}

/** The manifest the store keeps of a revision: front matter that runs it and every file's size and sha256. */
export function skillManifest(front: SkillFrontMatter, files: readonly SkillFile[]): SkillManifest {
  return {
    description: front.description,
    entry: front.entry,
    language: front.language,
    ...(front.inputs === undefined ? {} : { inputs: front.inputs }),
    files: sortedFiles(files).map((file) => ({ path: file.path, bytes: file.bytes.length, sha256: createHash('sha256').update(file.bytes).digest('hex') }))
  }
}

/**
 * `SKILL.md` as Airlock writes it: YAML front matter whose values are JSON (a subset of YAML, so
 * any reader parses it; JSON so a description cannot break out of its line), keys in a fixed
 * order, `inputs` with sorted keys; then a short body. The same front matter gives the same bytes.
 */
export function renderSkillDocument(front: SkillFrontMatter): Buffer {
  const lines = [
    '---',
    `name: ${JSON.stringify(front.name)}`,
    `description: ${JSON.stringify(front.description)}`,
    `entry: ${JSON.stringify(front.entry)}`,
    `language: ${JSON.stringify(front.language)}`
  ]
  if (front.inputs !== undefined) lines.push(`inputs: ${canonicalJson(front.inputs)}`)
  lines.push(
    '---',
    '',
    `# ${front.name}`,
    '',
    front.description,
    '',
    `Runs ${front.entry} (${front.language}) with run_skill; written by Airlock, runs only once the operator approved this content.`,
    ''
  )
  return Buffer.from(lines.join('\n'), 'utf8')
}

/**
 * Reads the front matter of a `SKILL.md` found in the workspace (hostile: the agent may have
 * written anything). Strict: UTF-8, `---` lines around `key: value` lines, known keys once each;
 * a value is JSON, or else taken as plain text (so a hand-written `entry: main.py` reads too).
 * Throws `skill.invalid_manifest` naming the problem.
 */
export function parseSkillDocument(bytes: Buffer): SkillFrontMatter {
  const invalid = (why: string) =>
    new SkillError('invalid_manifest', `${skillDocument}: ${why}. Save the skill again with persist_skill.`, { path: skillDocument })
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    throw invalid('is not UTF-8 text')
  }
  const lines = text.split('\n')
  if (lines[0] !== '---') throw invalid('does not start with a --- front matter line')
  const end = lines.indexOf('---', 1)
  if (end < 0) throw invalid('has no closing --- line after its front matter')
  const fields: Record<string, unknown> = {}
  for (const [index, line] of lines.slice(1, end).entries()) {
    const match = /^([a-z]+):[ \t]*(.*)$/.exec(line)
    if (!match) throw invalid(`line ${index + 2} is not "key: value"`)
    const [, key, raw] = match as unknown as [string, string, string]
    if (Object.hasOwn(fields, key)) throw invalid(`${key} appears twice`)
    fields[key] = jsonOrText(raw.trim())
  }
  const parsed = frontMatterSchema.safeParse(fields)
  if (!parsed.success) throw invalid(describeIssues(parsed.error, 'front matter'))
  return parsed.data as SkillFrontMatter
}

/** Refuses front matter that cannot run these files: the entry must be one of them (and not SKILL.md). */
export function assertRunnable(front: Pick<SkillFrontMatter, 'entry'>, files: readonly SkillFile[]): void {
  if (front.entry === skillDocument)
    throw new SkillError('invalid_manifest', `entry: ${skillDocument} describes the skill; name the program file to run.`, { entry: front.entry })
  if (!files.some((file) => file.path === front.entry))
    throw new SkillError('invalid_manifest', `entry: ${front.entry} is not one of the skill's files.`, { entry: front.entry })
}

function jsonOrText(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

function sortedFiles(files: readonly SkillFile[]): SkillFile[] {
  return [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')))
}

/** JSON with object keys sorted at every level: one text for one value. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value)
}
