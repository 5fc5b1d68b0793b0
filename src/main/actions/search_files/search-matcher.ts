import { AirlockError } from '@shared/errors'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { searchWorkerSource } from './search-worker-source'

/**
 * What the matcher searches for: the agent's pattern (literal or a JavaScript regular expression)
 * and glob, and the workspace-relative search root ('' for the workspace), which is searched even if ignored.
 */
export type MatcherOptions = { pattern: string; regex: boolean; glob?: string; maxLineChars: number; root: string }

/** A matching line of one file (1-based line number, the line cut to `maxLineChars`). */
export type LineMatch = { line: number; text: string }

/** Why the matcher stopped before its work was done: the deadline passed, or the call was cancelled. */
export class MatcherStopped extends AirlockError<'search_files.stopped'> {
  constructor(readonly why: 'deadline' | 'cancelled') {
    super('search_files.stopped', why === 'deadline' ? 'the search ran out of time' : 'the search was cancelled')
  }
}

const resolveModule = createRequire(__filename).resolve

/**
 * The main thread's side of the search worker (see search-worker-source.ts): requests and their
 * answers, with one deadline for all of them. At the deadline, or when `signal` aborts, the worker
 * is terminated (V8 interrupts even a regular expression in the middle of backtracking) and every
 * pending and later request rejects with `MatcherStopped`. The worker's heap is capped too.
 */
export class SearchMatcher {
  private readonly worker: Worker
  private readonly pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>()
  private nextId = 1
  private stopped: Error | undefined
  private readonly timer: NodeJS.Timeout
  private readonly onAbort = () => this.stop(new MatcherStopped('cancelled'))

  constructor(
    options: MatcherOptions,
    deadlineMs: number,
    private readonly signal?: AbortSignal
  ) {
    this.worker = new Worker(searchWorkerSource, {
      eval: true,
      workerData: { ...options, ignorePath: resolveModule('ignore'), picomatchPath: resolveModule('picomatch') },
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 }
    })
    this.worker.on('message', (message: { id: number }) => {
      const waiting = this.pending.get(message.id)
      this.pending.delete(message.id)
      waiting?.resolve(message as never)
    })
    this.worker.on('error', (error) => this.stop(error))
    this.worker.on('exit', () => this.stop(new Error('the search worker stopped')))
    this.timer = setTimeout(() => this.stop(new MatcherStopped('deadline')), deadlineMs)
    if (signal?.aborted) this.onAbort()
    else signal?.addEventListener('abort', this.onAbort, { once: true })
  }

  /** Which of a folder's entries to descend into or search, after registering its ignore files. */
  async filterDirectory(dir: string, ignoreTexts: string[], entries: { name: string; isDir: boolean }[]): Promise<boolean[]> {
    const answer = await this.request<{ keep: boolean[] }>({ type: 'directory', dir, ignoreTexts, entries })
    return answer.keep
  }

  /** The matching lines of one file's bytes (handed over to the worker, not copied); at most `limit`. */
  searchFile(file: string, bytes: Uint8Array, limit: number): Promise<{ binary: boolean; matches: LineMatch[]; more: boolean }> {
    const buffer = bytes.buffer.byteLength === bytes.byteLength ? bytes.buffer : bytes.slice().buffer
    return this.request({ type: 'file', file, buffer, limit }, [buffer as ArrayBuffer])
  }

  /** Terminates the worker; pending requests reject. */
  async close(): Promise<void> {
    this.stop(new Error('the search matcher was closed'))
    await this.worker.terminate()
  }

  private request<T>(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.stopped) return Promise.reject(this.stopped)
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: never) => void, reject })
      this.worker.postMessage({ ...message, id }, transfer)
    })
  }

  private stop(error: Error): void {
    if (this.stopped) return
    this.stopped = error
    clearTimeout(this.timer)
    this.signal?.removeEventListener('abort', this.onAbort)
    void this.worker.terminate()
    for (const waiting of this.pending.values()) waiting.reject(error)
    this.pending.clear()
  }
}
