/** The window title for a pending count: `(3) Airlock`, or `Airlock` when nothing waits. */
export function titleFor(pending: number): string {
  return pending > 0 ? `(${pending}) Airlock` : 'Airlock'
}

/** What the favicon badge says: the count, `99+` past 99, nothing at zero. */
export function badgeLabel(pending: number): string | undefined {
  if (pending <= 0) return undefined
  return pending > 99 ? '99+' : String(pending)
}
