/** Short label of an event type: `execution_resource.ready` → `ready`, `policy.approval.denied` → `approval denied`. */
export function eventLabel(type: string): string {
  return type.replace(/^execution_resource\./, '').replace(/^policy\.approval\./, 'approval ')
}

/** Human age of a timestamp relative to `now` (ms). */
export function ageOf(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (seconds < 60) return `${seconds}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`
  return `${Math.floor(seconds / 86_400)}d`
}

/** The facts of an event worth a glance, in order: kind, provider (unless named like the kind), scope and owner, short handle id. */
export function eventFacts(payload: Record<string, unknown>): string[] {
  const text = (key: string) => (typeof payload[key] === 'string' || typeof payload[key] === 'number' ? String(payload[key]) : undefined)
  const scope = text('scope')
  const provider = text('providerId')
  return [
    text('kind'),
    // A provider named like its kind (scratch_directory, sqlite) is said once.
    provider !== text('kind') ? provider && `via ${provider}` : undefined,
    scope && `${scope}${text('ownerId') ? ` ${text('ownerId')}` : ''}`,
    text('handleId') && `#${text('handleId')!.slice(0, 8)}`
  ].filter((fact): fact is string => Boolean(fact))
}
