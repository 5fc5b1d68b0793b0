import { isUtf8 } from 'node:buffer'
import { createRequire } from 'node:module'
import type * as Diff from 'diff'
import type { CheckpointChange, EntryState } from '../../store'
import type { ContentStore } from './content-store'

/** jsdiff, loaded the first time a diff is shown: every CLI command that checks a call would load it otherwise (~17 ms). `__filename`, not `import.meta`: see shell/analyzer.ts. */
let diffModule: typeof Diff | undefined
function loadDiff(): typeof Diff {
  diffModule ??= createRequire(__filename)('diff') as typeof Diff
  return diffModule
}

/** The largest side of a change shown as a text diff; larger ones say their sizes. */
export const diffableBytes = 512 * 1024

/** How long one diff may take to compute before it gives up (jsdiff's own bound). */
const diffTimeoutMs = 200

/** One changed entry as the console and the CLI show it. */
export type FileDiff = {
  path: string
  change: CheckpointChange['change']
  before: EntryState | null
  after: EntryState | null
  /** A unified diff of the text before and after; absent when either side is not shown as text. */
  diff?: string
  /** Why there is no text diff: binary content, too large, not kept, a folder... */
  note?: string
}

/**
 * The changes of a checkpoint as diffs: text (UTF-8, at most `diffableBytes` a side) as a unified
 * diff from jsdiff (`diff`, a maintained library: its Myers diff with a time bound does this better
 * than code we would write); a link as its target; anything else says what changed.
 */
export function describeChanges(changes: readonly CheckpointChange[], store: ContentStore): FileDiff[] {
  return changes.map((change) => {
    const path = shownPath(change.path)
    const base = { path, change: change.change, before: change.before, after: change.after }
    const kinds = [change.before?.kind, change.after?.kind].filter(Boolean)
    if (kinds.includes('dir')) return { ...base, note: change.change === 'mode' ? 'folder mode changed' : change.after ? 'folder added' : 'folder deleted' }
    if (kinds.includes('other')) return { ...base, note: 'not a file (FIFO, socket or device): recorded, not kept' }
    if (change.change === 'mode') return { ...base, note: `mode ${octal(change.before?.mode)} → ${octal(change.after?.mode)}` }
    const before = contentOf(change.before, store)
    const after = contentOf(change.after, store)
    if (typeof before === 'string' && change.before) return { ...base, note: before }
    if (typeof after === 'string' && change.after) return { ...base, note: after }
    const old = (before as Buffer | undefined) ?? Buffer.alloc(0)
    const now = (after as Buffer | undefined) ?? Buffer.alloc(0)
    if (!isUtf8(old) || !isUtf8(now) || old.includes(0) || now.includes(0)) return { ...base, note: `binary changed (${old.length} → ${now.length} bytes)` }
    const label = kinds.includes('link') ? `${path} (link target)` : path
    const diff = loadDiff().createTwoFilesPatch(
      change.before ? `a/${label}` : '/dev/null',
      change.after ? `b/${label}` : '/dev/null',
      old.toString('utf8'),
      now.toString('utf8'),
      undefined,
      undefined,
      { context: 3, timeout: diffTimeoutMs }
    )
    if (diff === undefined) return { ...base, note: `too many differences to show (${old.length} → ${now.length} bytes)` }
    // jsdiff opens with a line of `=`: the diff proper starts at `---`.
    return { ...base, diff: diff.slice(Math.max(0, diff.indexOf('--- '))) }
  })
}

/** An entry's content, or why it cannot be shown (a string). */
function contentOf(state: EntryState | null, store: ContentStore): Buffer | string | undefined {
  if (!state) return undefined
  if (!state.kept || state.hash === null) return `content not kept (${state.size} bytes; over checkpoints.max_file_mb or changing while recorded)`
  if (state.size > diffableBytes) return `too large to show as text (${state.size} bytes)`
  try {
    return store.read(state.hash)
  } catch {
    return 'content missing from the checkpoint store'
  }
}

/** A path's bytes as text: invalid UTF-8 and control characters escaped, so a name cannot forge lines. */
export function shownPath(path: Buffer): string {
  const text = isUtf8(path)
    ? path.toString('utf8')
    : [...path].map((byte) => (byte < 0x80 ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`)).join('')
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

const octal = (mode: number | undefined) => (mode === undefined ? '?' : (mode & 0o7777).toString(8).padStart(4, '0'))
