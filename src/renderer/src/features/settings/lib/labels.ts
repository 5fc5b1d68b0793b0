import { classificationLabelsSchema, classificationSchema, type Classification, type ClassificationLabels } from '@shared/agents'

/** The four kinds of thing a classification label names (SPEC §6.3). */
export const labelGroups = [
  { key: 'paths', title: 'Workspace paths', placeholder: 'secrets/**', hint: "Globs inside an agent's workspace." },
  { key: 'databases', title: 'SQLite databases', placeholder: '/srv/data/customers.db', hint: 'Globs of database file paths.' },
  { key: 'domains', title: 'Network domains', placeholder: '*.corp.example', hint: 'A host name, or *.suffix for every host under it.' },
  { key: 'mcpServers', title: 'MCP servers', placeholder: 'crm', hint: "An upstream server's name in agent profiles." }
] as const

/** One of the four label groups. */
export type LabelGroup = (typeof labelGroups)[number]['key']

/** The classification levels, lowest first. */
export const levels: readonly Classification[] = classificationSchema.options

/** One editable row: a pattern and its level. */
export type LabelRow = { pattern: string; level: Classification }

/** The editor's draft: rows per group, in the order the operator sees them. */
export type LabelDraft = Record<LabelGroup, LabelRow[]>

/** The setting's value as editor rows (unknown shapes read as empty). */
export function draftFromLabels(value: unknown): LabelDraft {
  const labels = (value && typeof value === 'object' ? value : {}) as Record<string, Record<string, Classification> | undefined>
  const draft = {} as LabelDraft
  for (const { key } of labelGroups) draft[key] = Object.entries(labels[key] ?? {}).map(([pattern, level]) => ({ pattern, level }))
  return draft
}

/** The result of checking a draft: the setting's value, or an error per row (`<group>:<index>`). */
export type CheckedLabels = { ok: true; value: ClassificationLabels } | { ok: false; errors: Record<string, string> }

/**
 * Checks a draft with the same schema main uses: each pattern once per group, not empty, of the
 * right form (a host name for domains, a slug for MCP servers); errors land on their rows.
 */
export function labelsFromDraft(draft: LabelDraft): CheckedLabels {
  const errors: Record<string, string> = {}
  const value: Record<string, Record<string, Classification>> = {}
  for (const { key } of labelGroups) {
    const rows = draft[key]
    const seen = new Map<string, number>()
    rows.forEach((row, index) => {
      const pattern = row.pattern.trim()
      if (pattern === '') errors[`${key}:${index}`] = 'Give a pattern, or remove the row.'
      else if (seen.has(pattern)) errors[`${key}:${index}`] = `Listed twice (also row ${seen.get(pattern)! + 1}).`
      else seen.set(pattern, index)
    })
    if (rows.length > 0) value[key] = Object.fromEntries(rows.map((row) => [row.pattern.trim(), row.level]))
  }
  const parsed = classificationLabelsSchema.safeParse(value)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [group, pattern] = issue.path as [LabelGroup, string | undefined]
      const index = pattern === undefined ? -1 : draft[group]?.findIndex((row) => row.pattern.trim() === pattern)
      const nested = 'issues' in issue && Array.isArray(issue.issues) ? (issue.issues[0] as { message?: string } | undefined)?.message : undefined
      const message = nested ?? issue.message
      if (index !== undefined && index >= 0) errors[`${group}:${index}`] ??= message
      else errors[`${group}:group`] ??= message
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: parsed.success ? parsed.data : {} }
}

/** How many labels a draft holds. */
export function labelCount(draft: LabelDraft): number {
  return labelGroups.reduce((sum, { key }) => sum + draft[key].length, 0)
}
