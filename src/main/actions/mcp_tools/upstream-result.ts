import { redacted } from '../../core'

/** An upstream tool result as `<server>__<tool>` returns it in `data` (the MCP `CallToolResult` shape). */
export type UpstreamToolData = {
  content: unknown[]
  structuredContent?: unknown
  isError?: boolean
  /** True when content was cut or dropped to stay within the agent's output limit. */
  truncated?: boolean
}

/** Known secrets shorter than this are not replaced (as in the core's redaction): they would hit ordinary words. */
const shortestSecret = 6

/**
 * The upstream's result for the agent: the server's known secrets (its env and header values,
 * which are the operator's credentials, not the agent's) replaced wherever they appear, and
 * content bounded by `maxBytes` (text cut, other items dropped with a note). Nothing else is
 * changed. `redactions` counts the secrets replaced.
 */
export function upstreamData(raw: unknown, secrets: readonly string[], maxBytes: number): { data: UpstreamToolData; redactions: number } {
  const known = secrets.filter((s) => s.length >= shortestSecret)
  let redactions = 0
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') {
      let out = value
      for (const secret of known) {
        const parts = out.split(secret)
        redactions += parts.length - 1
        out = parts.join(redacted)
      }
      return out
    }
    if (Array.isArray(value)) return value.map(clean)
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, clean(item)]))
    return value
  }
  const result = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>
  // Old servers answer `toolResult` instead of content (the protocol's compatibility form).
  const content = Array.isArray(result.content) ? result.content : 'toolResult' in result ? [{ type: 'text', text: JSON.stringify(result.toolResult) }] : []
  const data: UpstreamToolData = {
    content: clean(content) as unknown[],
    ...(result.structuredContent !== undefined ? { structuredContent: clean(result.structuredContent) } : {}),
    ...(result.isError === true ? { isError: true } : {})
  }
  return { data: bounded(data, maxBytes), redactions }
}

/** The first text of a result's content (what an upstream error says), shortened. */
export function firstText(data: UpstreamToolData): string | undefined {
  const item = data.content.find(
    (c): c is { type: 'text'; text: string } =>
      typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string'
  )
  return item ? (item.text.length > 1000 ? `${item.text.slice(0, 1000)}…` : item.text) : undefined
}

function bounded(data: UpstreamToolData, maxBytes: number): UpstreamToolData {
  if (size(data) <= maxBytes) return data
  let budget = maxBytes
  const content: unknown[] = []
  for (const item of data.content) {
    const itemBytes = size(item)
    if (itemBytes <= budget) {
      content.push(item)
      budget -= itemBytes
      continue
    }
    const text = (item as { type?: unknown; text?: unknown }).type === 'text' ? (item as { text: unknown }).text : undefined
    if (typeof text === 'string' && budget > 64) {
      const cut = Buffer.from(text)
        .subarray(0, budget - 64)
        .toString('utf8')
        .replace(/\uFFFD$/, '')
      content.push({ ...(item as object), text: cut })
      budget = 0
      continue
    }
    content.push({
      type: 'text',
      text: `[a ${String((item as { type?: unknown }).type ?? 'content')} item was left out: the output limit is ${maxBytes} bytes]`
    })
  }
  const keepStructured = data.structuredContent !== undefined && size(data.structuredContent) <= budget
  return { content, ...(keepStructured ? { structuredContent: data.structuredContent } : {}), ...(data.isError ? { isError: true } : {}), truncated: true }
}

function size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '')
}
