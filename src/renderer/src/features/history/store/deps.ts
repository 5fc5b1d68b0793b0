import type { AirlockApi } from '@shared/ipc'
import type { Result } from '@shared/result'

/** What the history store needs from the outside: the contract's calls (history, agents, providers) and a way to save a file. */
export type HistoryDeps = {
  api: Pick<AirlockApi, 'history' | 'agents' | 'providers'>
  save(parts: BlobPart[], name: string): void
  now(): Date
}

/** A call's value, or an Error carrying the host's message. */
export async function valueOf<T>(result: Promise<Result<T>>): Promise<T> {
  const settled = await result
  if (!settled.ok) throw new Error(settled.error.message)
  return settled.value
}

/** The message of whatever a store action caught. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
