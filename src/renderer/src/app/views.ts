/** The console's views, in navigation order. */
export const views = [
  { id: 'agents', title: 'Agents' },
  { id: 'approvals', title: 'Approvals' },
  { id: 'history', title: 'History' },
  { id: 'providers', title: 'Providers' },
  { id: 'resources', title: 'Resources' },
  { id: 'settings', title: 'Settings' }
] as const

/** The id of a view. */
export type ViewId = (typeof views)[number]['id']

/** Reads a view id from a location hash (`#/history` → history); unknown → agents. */
export function viewFromHash(hash: string): ViewId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0]
  return views.find((view) => view.id === id)?.id ?? 'agents'
}
