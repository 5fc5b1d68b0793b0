import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ActionResult } from '../core'

/**
 * An `ActionResult` as MCP returns it (SPEC §5.3): `structuredContent` is the result itself (as
 * JSON), one text block renders it for people, and `isError` is true unless the call succeeded.
 * Decision: the text block is not the JSON of `structuredContent` (MCP 2025-06-18 says SHOULD, for
 * clients that read only text). Models read the text block: a command's output as JSON would have
 * every newline escaped and say everything twice; the rendering keeps the output whole and
 * readable (exit code, both streams, the policy's reason), and clients that want the fields read
 * `structuredContent`, which every SDK client of 2025-06-18 or later does.
 */
export function toolCallResult(tool: string, result: ActionResult): CallToolResult {
  const structured = JSON.parse(JSON.stringify(result)) as Record<string, unknown>
  return { content: [{ type: 'text', text: renderResult(tool, result) }], structuredContent: structured, isError: result.status !== 'success' }
}

/** The text block: what happened, then the data the way a person reads it (output is never summarised away). */
export function renderResult(tool: string, result: ActionResult): string {
  const lines: string[] = []
  if (result.status !== 'success') {
    lines.push(`${tool} ${result.status.replace('_', ' ')}: ${result.error?.message ?? 'no reason was given'}`)
    const policy = result.meta.policy as { rule?: string; reason?: string } | undefined
    if (policy?.rule) lines.push(`policy rule: ${policy.rule}${policy.reason ? ` (${policy.reason})` : ''}`)
    const approval = result.meta.approval as { status?: string; reason?: string } | undefined
    if (approval?.status) lines.push(`approval: ${approval.status}${approval.reason ? ` (${approval.reason})` : ''}`)
  }
  const data = renderData(result.data)
  if (data) lines.push(data)
  for (const note of result.diagnostics) lines.push(`note: ${note}`)
  return lines.length > 0 ? lines.join('\n') : `${tool} succeeded.`
}

function renderData(data: unknown): string | undefined {
  if (data === undefined || data === null) return undefined
  if (typeof data !== 'object') return String(data)
  const record = data as Record<string, unknown>
  // A command or code run: exit code, then both streams in full (bounded by the agent's limit).
  if (typeof record.exitCode === 'number' || typeof record.stdout === 'string') {
    const parts = [`exit code ${String(record.exitCode)}${typeof record.durationMs === 'number' ? ` after ${record.durationMs} ms` : ''}`]
    if (record.stdout) parts.push(`stdout${record.stdoutTruncated ? ' (truncated)' : ''}:\n${String(record.stdout)}`)
    if (record.stderr) parts.push(`stderr${record.stderrTruncated ? ' (truncated)' : ''}:\n${String(record.stderr)}`)
    return parts.join('\n')
  }
  // A file read: its text as it is.
  if (typeof record.content === 'string' && typeof record.path === 'string') {
    return record.truncated ? `${record.content}\n[${record.path}: shown in part of ${String(record.totalBytes)} bytes; read on with offset]` : record.content
  }
  // A proxied upstream result: its text items as the upstream wrote them.
  if (Array.isArray(record.content)) {
    const texts = record.content.flatMap((item) =>
      item && typeof item === 'object' && (item as { type?: unknown }).type === 'text' ? [String((item as { text?: unknown }).text)] : []
    )
    if (texts.length === record.content.length && texts.length > 0) return texts.join('\n')
  }
  return JSON.stringify(data, null, 2)
}
