import { Bot, Boxes, History, Inbox, Settings, Layers } from 'lucide-react'

/** The console's views, in navigation order, each with its icon. */
export const views = [
  { id: 'agents', title: 'Agents', icon: Bot },
  { id: 'approvals', title: 'Approvals', icon: Inbox },
  { id: 'history', title: 'History', icon: History },
  { id: 'providers', title: 'Providers', icon: Layers },
  { id: 'resources', title: 'Resources', icon: Boxes },
  { id: 'settings', title: 'Settings', icon: Settings }
] as const

/** The id of a view. */
export type ViewId = (typeof views)[number]['id']

/** Reads a view id from a location hash (`#/history?status=error` → history); unknown → agents. */
export function viewFromHash(hash: string): ViewId {
  const id = hash.replace(/^#\/?/, '').split(/[/?]/)[0]
  return views.find((view) => view.id === id)?.id ?? 'agents'
}
