import type { HistoryDetail, HistoryOutput, HistoryRow, HistoryVerification } from '@shared/ipc/history'
import { hasHiddenCharacters } from '@shared/visible-text'
import { formatBytes } from './format'

/** The input summary as labelled fields: strings as they are (code keeps its lines), anything else as JSON. */
export function inputFields(input: unknown): { key: string; text: string; block: boolean }[] {
  if (input === null || input === undefined) return []
  if (typeof input !== 'object' || Array.isArray(input)) return [{ key: 'input', text: JSON.stringify(input, null, 2), block: true }]
  return Object.entries(input as Record<string, unknown>).map(([key, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2)
    return { key, text, block: text.includes('\n') || text.length > 100 }
  })
}

/**
 * The agent-written text of a call a row or the drawer shows before its output: the tool, every
 * key and string of the recorded input, the error message. What the "hidden characters" flag of a
 * row and the note over the drawer's input are decided on (outputs carry their own note).
 */
export function callTexts(row: Pick<HistoryRow, 'tool' | 'inputSummary' | 'error'>): string[] {
  const texts = [row.tool]
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === 'string') texts.push(value)
    else if (value !== null && typeof value === 'object' && depth < 32) {
      for (const [key, inner] of Object.entries(value)) {
        if (!Array.isArray(value)) texts.push(key)
        walk(inner, depth + 1)
      }
    }
  }
  walk(row.inputSummary, 0)
  if (row.error) texts.push(row.error.code, row.error.message)
  return texts
}

/** Whether a call's text (`callTexts`) holds a hidden character: the row is flagged. */
export function callHidesText(row: Pick<HistoryRow, 'tool' | 'inputSummary' | 'error'>): boolean {
  return callTexts(row).some(hasHiddenCharacters)
}

/** One fact line under an output stream, and how loud it is. */
export type OutputNote = { tone: 'muted' | 'warn' | 'bad'; text: string }

/** What to say about an output stream: where its text is kept and what is missing from it. */
export function outputNotes(stream: HistoryOutput): OutputNote[] {
  const notes: OutputNote[] = []
  if (stream.logFile !== null) {
    const size = stream.text !== null ? `, ${formatBytes(new TextEncoder().encode(stream.text).length)}` : ''
    notes.push({ tone: 'muted', text: `Over 64 KiB: kept in logs/${stream.logFile}${size}${stream.sha256 ? `, sha256 ${stream.sha256.slice(0, 16)}…` : ''}` })
  }
  if (stream.problem) notes.push({ tone: 'bad', text: stream.problem })
  return notes
}

/** Whether an output stream has anything to show or say. */
export function hasOutput(stream: HistoryOutput): boolean {
  return (stream.text !== null && stream.text.length > 0) || stream.logFile !== null || stream.problem !== undefined || stream.truncated
}

const axisLabels = [
  ['processContained', 'process contained'],
  ['hostFilesystemRestricted', 'host filesystem restricted'],
  ['privilegeEscalationBlocked', 'privilege escalation blocked'],
  ['syscallsRestricted', 'syscalls restricted']
] as const

/** The provider facts a call recorded, arranged for the drawer. */
export type ProviderFacts = {
  providerId?: string
  axes: { label: string; on: boolean }[]
  mechanism?: string
  networkMode?: string
  /** Set when the preferred isolation was not available and a weaker provider ran the call. */
  fallback?: string
  probes: { providerId: string; eligible: boolean; reason?: string }[]
  /** Any other recorded fact, as key and short text. */
  other: [string, string][]
}

/** Arranges a row's `provider` record (providerId, isolation, fallback, probes, …) for display. */
export function providerFacts(provider: Record<string, unknown> | null): ProviderFacts | undefined {
  if (provider === null || typeof provider !== 'object') return undefined
  const { providerId, isolation, preferenceFallback, fallback, probes, ...rest } = provider
  const iso = isolation !== null && typeof isolation === 'object' ? (isolation as Record<string, unknown>) : undefined
  const reason = fallback !== null && typeof fallback === 'object' ? (fallback as Record<string, unknown>).reason : fallback
  const fallbackText =
    typeof reason === 'string'
      ? reason
      : fallback !== undefined && fallback !== null
        ? JSON.stringify(fallback)
        : preferenceFallback === true
          ? 'the preferred isolation was not available'
          : undefined
  return {
    providerId: typeof providerId === 'string' ? providerId : undefined,
    axes: iso ? axisLabels.filter(([key]) => typeof iso[key] === 'boolean').map(([key, label]) => ({ label, on: iso[key] === true })) : [],
    mechanism: typeof iso?.mechanism === 'string' ? iso.mechanism : undefined,
    networkMode: typeof iso?.networkMode === 'string' ? iso.networkMode : undefined,
    fallback: fallbackText,
    probes: Array.isArray(probes)
      ? probes
          .filter((probe): probe is Record<string, unknown> => probe !== null && typeof probe === 'object')
          .map((probe) => ({
            providerId: String(probe.providerId),
            eligible: probe.eligible === true,
            ...(typeof probe.reason === 'string' ? { reason: probe.reason } : {})
          }))
      : [],
    other: Object.entries(rest).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)])
  }
}

/** The verification result as one sentence. */
export function verificationText(result: HistoryVerification): string {
  const rows = `${result.rows.toLocaleString('en-US')} ${result.rows === 1 ? 'row checks' : 'rows check'} out`
  if (result.ok) return `Chain intact: ${rows}${result.head ? `; head ${result.head.slice(0, 16)}…` : '.'}`
  const where = result.brokenAt ? ` at row ${result.brokenAt.seq}${result.brokenAt.id ? ` (${result.brokenAt.id})` : ''}` : ''
  return `Chain broken${where}: ${result.reason ?? 'no reason given'}. ${rows} before it.`
}

/** Where one call stands in the hash chain, given the last verification of the whole chain (if any). */
export type ChainStanding = { tone: 'ok' | 'bad' | 'warn' | 'neutral'; label: string; text: string }

/** The chain status of one call for the drawer: not chained yet, not verified yet, covered by an intact check, or after a break. */
export function chainStanding(detail: Pick<HistoryDetail, 'chain' | 'seq'>, verification: HistoryVerification | undefined): ChainStanding {
  if (!detail.chain) return { tone: 'neutral', label: 'not chained', text: 'A row joins the chain when its call ends.' }
  if (!verification) return { tone: 'neutral', label: 'not verified', text: 'Verify the chain to re-hash every row and log file up to the head.' }
  if (verification.ok) {
    return detail.chain.chainSeq <= verification.rows
      ? { tone: 'ok', label: 'verified', text: `Re-hashed with the whole chain: ${verification.rows.toLocaleString('en-US')} rows check out.` }
      : { tone: 'neutral', label: 'not verified', text: 'This row joined the chain after the last verification.' }
  }
  if (verification.brokenAt?.seq === detail.seq) return { tone: 'bad', label: 'broken here', text: verification.reason ?? 'This row does not match its hash.' }
  return detail.chain.chainSeq <= verification.rows
    ? { tone: 'ok', label: 'verified', text: `This row checks out; the chain breaks later, at row ${verification.brokenAt?.seq ?? '?'}.` }
    : {
        tone: 'bad',
        label: 'after a break',
        text: `The chain breaks before this row, at row ${verification.brokenAt?.seq ?? '?'}: rows after the break cannot be trusted.`
      }
}

/** The result's data as text for the drawer, or undefined when there is nothing to show. */
export function resultText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'object' && Object.keys(value as object).length === 0) return undefined
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2)
}
