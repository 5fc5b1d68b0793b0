import type { ResourceStatus } from '@shared/resources'

/** The badge tone of a handle's status. */
export function handleTone(status: ResourceStatus): 'ok' | 'bad' | 'warn' | 'info' | 'neutral' {
  if (status === 'ready') return 'ok'
  if (status === 'failed' || status === 'unhealthy') return 'bad'
  if (status === 'pending_approval') return 'warn'
  if (status === 'released' || status === 'releasing') return 'neutral'
  return 'info'
}

/** Sorts handles for the table: newest first, then by id, so the list does not jump on refresh. */
export function sortHandles<T extends { createdAt: string; handleId: string }>(handles: readonly T[]): T[] {
  return [...handles].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.handleId.localeCompare(b.handleId))
}
