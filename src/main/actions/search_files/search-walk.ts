import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { childPath, openChildDirectory, readAt, readDirectory, hostFolder, type DirectoryEntry } from '../../files/workspace'
import { MatcherStopped, type SearchMatcher } from './search-matcher'

/**
 * The bounds of one search. Results: `maxMatches` lines of at most `maxLineChars` characters.
 * Work: `maxEntries` folder entries seen, `maxFiles` files and `maxBytes` bytes read, `maxDepth`
 * levels, `deadlineMs` in all; reaching any of them ends the search with `truncated`. Files over
 * `maxFileBytes` are skipped (and counted), like binary files; ignore files over
 * `maxIgnoreFileBytes` are not read.
 */
export const searchBounds = {
  maxMatches: 200,
  maxLineChars: 500,
  maxEntries: 100_000,
  maxFiles: 20_000,
  maxBytes: 64 * 1024 * 1024,
  maxFileBytes: 4 * 1024 * 1024,
  maxIgnoreFileBytes: 256 * 1024,
  maxDepth: 64,
  deadlineMs: 10_000
} as const

/** Bounds of a search, the shape of `searchBounds` (tests shorten them). */
export type SearchBounds = { [Key in keyof typeof searchBounds]: number }

/** A match as `search_files` reports it: the workspace-relative file, the 1-based line, the line's text. */
export type SearchMatch = { file: string; line: number; text: string }

/** What a search found, whether a bound cut it, and notes on what it skipped (for the diagnostics). */
export type SearchResult = { matches: SearchMatch[]; truncated: boolean; notes: string[] }

/** The ignore files read in every folder, as ripgrep reads them (whether or not the folder is in a git repository). */
export const ignoreFileNames = ['.gitignore', '.ignore'] as const

const fileFlags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK

/**
 * A depth-first walk (entries in byte order, so results are stable) of a workspace folder that the
 * matcher filters and searches. Only folders and regular files are considered: links are never
 * followed, FIFOs and devices never opened, hard-linked files (maybe outside the workspace) not
 * read, `.git` and the host's `.airlock/` never entered. Every open is no-follow, relative to a
 * folder already open.
 */
export class SearchWalk {
  readonly result: SearchResult = { matches: [], truncated: false, notes: [] }
  private entries = 0
  private files = 0
  private bytes = 0
  private readonly skipped = { binary: 0, large: 0, hardLinked: 0, badNames: 0, deep: 0 }
  private done = false

  constructor(
    private readonly matcher: SearchMatcher,
    private readonly signal: AbortSignal,
    private readonly bounds: SearchBounds = searchBounds
  ) {}

  /** Registers the ignore files of a folder above the search root (their rules apply below it). */
  async addAncestor(fd: number, dir: string): Promise<void> {
    const entries = await readDirectory(fd)
    await this.matcher.filterDirectory(dir, await this.ignoreTexts(fd, entries), [])
  }

  /** Walks folder `fd` (workspace-relative `dir`, '' for the root) at `depth`. */
  async walk(fd: number, dir: string, depth = 0): Promise<void> {
    if (this.stopIf(this.signal.aborted)) return
    const entries = await readDirectory(fd)
    const candidates: DirectoryEntry[] = []
    for (const entry of entries) {
      this.entries += 1
      if (this.entries > this.bounds.maxEntries) return void this.stopIf(true, `stopped after ${this.bounds.maxEntries} folder entries`)
      if (entry.type !== 'file' && entry.type !== 'directory') continue
      if (entry.type === 'directory' && (entry.name === '.git' || (dir === '' && entry.name === hostFolder))) continue
      if (!entry.validName) {
        this.skipped.badNames += 1
        continue
      }
      candidates.push(entry)
    }
    const keep = await this.matcher.filterDirectory(
      dir,
      await this.ignoreTexts(fd, entries),
      candidates.map((entry) => ({ name: entry.name, isDir: entry.type === 'directory' }))
    )
    for (const [index, entry] of candidates.entries()) {
      if (this.done) return
      if (!keep[index]) continue
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`
      if (entry.type === 'file') {
        await this.searchFile(fd, entry.raw, relative)
        continue
      }
      if (depth + 1 > this.bounds.maxDepth) {
        this.skipped.deep += 1
        continue
      }
      const child = await openChildDirectory(fd, entry.raw)
      if (!child) continue
      try {
        await this.walk(child.fd, relative, depth + 1)
      } finally {
        await child.close()
      }
    }
  }

  /** Searches one regular file found in folder `fd` (or named directly: then `fd` is its folder). */
  async searchFile(fd: number, raw: Buffer, relative: string): Promise<void> {
    if (this.done) return
    const handle = await open(childPath(fd, raw), fileFlags).catch(() => undefined)
    if (!handle) return
    try {
      await this.searchOpened(handle, relative)
    } finally {
      await handle.close()
    }
  }

  /** The notes for the diagnostics, once the walk is over. */
  finish(): SearchResult {
    const { binary, large, hardLinked, badNames, deep } = this.skipped
    const notes = this.result.notes
    if (binary) notes.push(`${binary} binary file${binary === 1 ? '' : 's'} (with NUL bytes) not searched`)
    if (large) notes.push(`${large} file${large === 1 ? '' : 's'} over ${this.bounds.maxFileBytes} bytes not searched`)
    if (hardLinked) notes.push(`${hardLinked} hard-linked file${hardLinked === 1 ? '' : 's'} not searched (they may be files outside the workspace)`)
    if (badNames) notes.push(`${badNames} entr${badNames === 1 ? 'y' : 'ies'} with names that are not UTF-8 not searched`)
    if (deep) {
      this.result.truncated = true
      notes.push(`${deep} folder${deep === 1 ? '' : 's'} deeper than ${this.bounds.maxDepth} levels not searched`)
    }
    return this.result
  }

  /** Ends the search early when `condition` holds, with a note of why (a deadline or cancellation from the matcher). */
  stopIf(condition: boolean, note?: string): boolean {
    if (!condition) return this.done
    this.done = true
    this.result.truncated = true
    if (note) this.result.notes.push(note)
    return true
  }

  /** Turns the matcher stopping into the end of the search; anything else is re-thrown. */
  stoppedBy(error: unknown): void {
    if (!(error instanceof MatcherStopped) || error.why !== 'deadline') throw error
    this.stopIf(true, `the search ran out of time after ${this.bounds.deadlineMs / 1000} s; the matches so far are shown`)
  }

  private async searchOpened(handle: FileHandle, relative: string): Promise<void> {
    const stat = await handle.stat()
    if (!stat.isFile()) return
    if (stat.nlink > 1) return void (this.skipped.hardLinked += 1)
    if (stat.size > this.bounds.maxFileBytes) return void (this.skipped.large += 1)
    this.files += 1
    if (this.stopIf(this.files > this.bounds.maxFiles, `stopped after searching ${this.bounds.maxFiles} files`)) return
    if (this.stopIf(this.bytes + stat.size > this.bounds.maxBytes, `stopped after reading ${this.bytes} bytes`)) return
    const bytes = await readAt(handle.fd, stat.size, 0)
    this.bytes += bytes.length
    const limit = this.bounds.maxMatches - this.result.matches.length
    const found = await this.matcher.searchFile(relative, bytes, limit)
    if (found.binary) return void (this.skipped.binary += 1)
    for (const match of found.matches) this.result.matches.push({ file: relative, line: match.line, text: match.text })
    this.stopIf(
      found.more || this.result.matches.length >= this.bounds.maxMatches,
      `stopped at ${this.bounds.maxMatches} matches; narrow the pattern, path or glob`
    )
  }

  private async ignoreTexts(fd: number, entries: readonly DirectoryEntry[]): Promise<string[]> {
    const texts: string[] = []
    for (const entry of entries) {
      if (entry.type !== 'file' || !(ignoreFileNames as readonly string[]).includes(entry.name)) continue
      const handle = await open(childPath(fd, entry.raw), fileFlags).catch(() => undefined)
      if (!handle) continue
      try {
        const stat = await handle.stat()
        if (!stat.isFile() || stat.nlink > 1 || stat.size > this.bounds.maxIgnoreFileBytes) continue
        texts.push((await readAt(handle.fd, stat.size, 0)).toString('utf8'))
      } finally {
        await handle.close()
      }
    }
    return texts
  }
}
