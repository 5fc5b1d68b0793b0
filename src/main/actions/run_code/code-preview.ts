import type { CodeExecutionRequest } from '@shared/code-execution'

/** The most a code preview shows (characters); the queue keeps at most 64 KiB of any preview. */
const maxPreviewChars = 60 * 1024

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** What a preview shows of a run: a code execution request, whose language may not be known (a skill without a matching revision). */
export type CodePreviewInput = Omit<CodeExecutionRequest, 'language'> & { language?: CodeExecutionRequest['language'] }

/**
 * What the operator reads before approving a program (the approval queue's preview for
 * `run_code`, and `run_skill`'s files): language, entrypoint, args, expected outputs, the
 * dependency manifest and every file's content (each line after `| `, the entrypoint first, a
 * path that is not plain JSON-quoted). Bounded: past 60 KiB
 * the rest is left out with an explicit `… N more characters in M files not shown` line, so a
 * cut is never silent. A base64 file that is not UTF-8 text is named with its size only.
 * `heading` lines come first (run_skill names the skill and revision).
 */
export function previewCode(request: CodePreviewInput, heading: readonly string[] = []): string {
  const facts = [
    ...heading,
    `language: ${request.language ?? 'not known'}`,
    `entrypoint: ${request.entrypoint ?? (request.sourceCode !== undefined ? '(sourceCode)' : 'not known')}`,
    `args: ${request.args?.length ? JSON.stringify(request.args) : 'none'}`,
    ...(request.expectedOutputs?.length ? [`expected outputs: ${request.expectedOutputs.join(', ')}`] : [])
  ]
  const parts: { title: string; text: string }[] = []
  if (request.dependencies) parts.push({ title: request.dependencies.kind, text: request.dependencies.content })
  if (request.sourceCode !== undefined) parts.push({ title: 'sourceCode', text: request.sourceCode })
  // The entrypoint first: it is what runs.
  const files = [...(request.files ?? [])].sort((a, b) => Number(b.path === request.entrypoint) - Number(a.path === request.entrypoint))
  for (const file of files) parts.push({ title: file.path, text: fileText(file) })

  let out = `${facts.join('\n')}\n`
  for (const [index, part] of parts.entries()) {
    // Content lines after `| `: nothing a file holds can pass for a heading of another file.
    const body = part.text
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => `| ${line}\n`)
      .join('')
    const section = `\n${shownName(part.title)} (${part.text.length} characters):\n${body}`
    if (out.length + section.length <= maxPreviewChars) {
      out += section
      continue
    }
    const room = Math.max(0, maxPreviewChars - out.length - 200)
    const kept = section.slice(0, room)
    const rest = parts.slice(index + 1)
    const left = section.length - kept.length + rest.reduce((sum, other) => sum + other.text.length, 0)
    out += `${kept}${kept.endsWith('\n') || kept === '' ? '' : '\n'}… ${left} more characters${rest.length > 0 ? ` (and ${rest.length} more file${rest.length === 1 ? '' : 's'})` : ''} not shown\n`
    break
  }
  return out
}

/** A section's name: a plain path as it is, anything else JSON-quoted (no newline or control can hide in it). */
function shownName(name: string): string {
  return /^[A-Za-z0-9_./@+-]+$/.test(name) ? name : JSON.stringify(name)
}

/** A bundle file as text: UTF-8 as given, base64 decoded when it is UTF-8 text, else its size only. */
function fileText(file: NonNullable<CodeExecutionRequest['files']>[number]): string {
  if (file.encoding !== 'base64') return file.content
  const bytes = Buffer.from(file.content, 'base64')
  try {
    const text = strictUtf8.decode(bytes)
    if (!text.includes('\0')) return text
  } catch {
    // Not text: below.
  }
  return `(binary, ${bytes.length} bytes, not shown)`
}
