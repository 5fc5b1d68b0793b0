import { redactText } from '../../core'
import { skillDocument, type SkillFile, type SkillRevisionRecord } from '../../files/skills'

/**
 * Bounds of what the preview shows, in characters. Together they stay under the 64 KiB the queue
 * keeps of any preview, so the queue never cuts it blindly; every cut here says where it is and
 * how much was left out.
 */
const bounds = { fileList: 12 * 1024, document: 6 * 1024, entry: 20 * 1024, helpers: 16 * 1024, inputs: 2 * 1024, path: 300 }

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * What the operator reads before approving a skill revision (the queue item's preview): the
 * revision, its content hash, entry and language as the store recorded them, how it differs from
 * the approved revision (if any), every file with its size and sha256, then the text of SKILL.md,
 * of the entry file and of the other files (the ones changed since the approved revision first,
 * within a shared bound; a helper module runs as surely as the entry does). File text is shown line by line after `| ` and paths that are not plain
 * ASCII are JSON-quoted, so nothing a file holds or is named can pass for Airlock's own lines. The
 * files are the bytes the call read and hashed: the very ones that run if it is approved. Secrets
 * the agent's records redact are redacted here too.
 */
export function skillApprovalPreview(
  revision: SkillRevisionRecord,
  files: readonly SkillFile[],
  approved: SkillRevisionRecord | undefined,
  secrets: readonly string[] = []
): string {
  const { manifest } = revision
  const total = manifest.files.reduce((sum, file) => sum + file.bytes, 0)
  const lines = [
    `Skill ${revision.skillId}, revision ${revision.revision} (${revision.state}), content ${revision.contentHash}.`,
    'Approving lets exactly this content run, with any arguments, at this call and later ones; denying rejects this revision.',
    `entry: ${shownPath(manifest.entry)} (${manifest.language})`,
    ...(manifest.inputs === undefined ? [] : [`inputs: ${cut(JSON.stringify(manifest.inputs), bounds.inputs)}`]),
    approved
      ? `changes since revision ${approved.revision}, the approved one: ${changes(approved, revision)}`
      : 'no revision of this skill was approved before',
    `files (${manifest.files.length}, ${total} bytes in all; size, sha256 of the bytes, path):`,
    ...fileList(manifest.files)
  ]
  const document = files.find((file) => file.path === skillDocument)
  const entry = files.find((file) => file.path === manifest.entry)
  if (document) lines.push('', ...fileText(`${skillDocument}`, document.bytes, bounds.document, secrets))
  if (entry) lines.push('', ...fileText(`${shownPath(entry.path)}, the entry`, entry.bytes, bounds.entry, secrets))
  lines.push(...helperTexts(files, revision, approved, secrets))
  return redactText(`${lines.join('\n')}\n`, secrets)
}

/**
 * The text of every file but SKILL.md and the entry, changed or added ones (against the approved
 * revision) first, within `bounds.helpers` in all; files left out are named with how to see them.
 */
function helperTexts(
  files: readonly SkillFile[],
  revision: SkillRevisionRecord,
  approved: SkillRevisionRecord | undefined,
  secrets: readonly string[]
): string[] {
  const before = new Map(approved?.manifest.files.map((file) => [file.path, file.sha256]) ?? [])
  const changed = (file: SkillFile) => before.get(file.path) !== revision.manifest.files.find((entry) => entry.path === file.path)?.sha256
  const helpers = files
    .filter((file) => file.path !== skillDocument && file.path !== revision.manifest.entry)
    .sort((a, b) => Number(changed(b)) - Number(changed(a)))
  const out: string[] = []
  let left = bounds.helpers
  for (const [index, file] of helpers.entries()) {
    if (left < 200) {
      out.push(
        '',
        `… ${helpers.length - index} more files not shown here: ${helpers
          .slice(index)
          .map((rest) => shownPath(rest.path))
          .join(', ')
          .slice(0, 2000)} (read them in the workspace's skills folder)`
      )
      break
    }
    const text = fileText(`${shownPath(file.path)}${approved && !changed(file) ? ', unchanged since the approved revision' : ''}`, file.bytes, left, secrets)
    out.push('', ...text)
    left -= text.reduce((sum, line) => sum + line.length + 1, 0)
  }
  return out
}

/** One line per file, `size  sha256  path`, up to the list's bound; the rest counted. */
function fileList(files: SkillRevisionRecord['manifest']['files']): string[] {
  const out: string[] = []
  let used = 0
  for (const [index, file] of files.entries()) {
    const line = `  ${String(file.bytes).padStart(8)}  ${file.sha256}  ${shownPath(file.path)}`
    if (used + line.length > bounds.fileList) {
      out.push(`  … ${files.length - index} more files not shown (airlock skills list --json lists every file)`)
      break
    }
    out.push(line)
    used += line.length + 1
  }
  return out
}

/** Files added, removed or changed against another revision, by their recorded sha256. */
function changes(from: SkillRevisionRecord, to: SkillRevisionRecord): string {
  const before = new Map(from.manifest.files.map((file) => [file.path, file.sha256]))
  const after = new Map(to.manifest.files.map((file) => [file.path, file.sha256]))
  const named = [
    ...[...after].filter(([path, sha]) => before.has(path) && before.get(path) !== sha).map(([path]) => `${shownPath(path)} changed`),
    ...[...after.keys()].filter((path) => !before.has(path)).map((path) => `${shownPath(path)} added`),
    ...[...before.keys()].filter((path) => !after.has(path)).map((path) => `${shownPath(path)} removed`)
  ]
  const text = named.length > 0 ? named.join('; ') : 'no file differs'
  return cut(text, bounds.fileList / 4)
}

/**
 * A file's text after a heading, each line after `| `, at most `max` characters as shown (the
 * prefixes count), then a line saying how much was left out; a file that is not text: its size only.
 */
function fileText(title: string, bytes: Buffer, max: number, secrets: readonly string[]): string[] {
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    return [`${title} (${bytes.length} bytes): not UTF-8 text, not shown`]
  }
  if (text.includes('\0')) return [`${title} (${bytes.length} bytes): binary (holds NUL), not shown`]
  // Redacted before it is cut and prefixed: a key block is recognised whole, never half shown.
  const shown = redactText(text, secrets).replace(/\n$/, '')
  const out = [`${title} (${bytes.length} bytes), each line after "| ":`]
  let used = 0
  let consumed = 0
  for (const line of shown.split('\n')) {
    const room = max - used - 3
    if (room <= 0) break
    let end = Math.min(line.length, room)
    if (end < line.length && /[\ud800-\udbff]/.test(line[end - 1]!)) end -= 1
    out.push(`| ${line.slice(0, end)}`)
    used += end + 3
    consumed += end + (end === line.length ? 1 : 0)
    if (end < line.length) break
  }
  const left = Math.max(0, shown.length - consumed)
  if (left > 0) out.push(`… ${left} more characters of ${title} not shown`)
  return out
}

/** A path as the preview names it: plain printable ASCII as is, anything else (spaces, line breaks, other scripts) JSON-quoted. */
function shownPath(path: string): string {
  const plain = /^[\x21-\x7e]+$/.test(path) ? path : JSON.stringify(path)
  return cut(plain, bounds.path)
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters in all)` : text
}
