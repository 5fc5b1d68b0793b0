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
