import type { WorkspaceEntry } from '@shared/ipc/workspace'
import type { AppError } from '@shared/result'

/** One directory as the tree knows it: loading, its entries (from `workspace.list`), or the host's error. */
export type DirectoryState = { status: 'loading' } | { status: 'ready'; entries: WorkspaceEntry[]; truncated: boolean } | { status: 'error'; error: AppError }

/** One visible line of the tree: an entry at a depth, or a note under a directory (loading, error, cut, empty). */
export type TreeRow =
  | { type: 'entry'; entry: WorkspaceEntry; depth: number; expanded: boolean }
  | { type: 'note'; key: string; depth: number; tone: 'muted' | 'bad'; text: string }

/** Directories first, then files, each by name (as file managers list them). */
export function sortEntries(entries: readonly WorkspaceEntry[]): WorkspaceEntry[] {
  return [...entries].sort((a, b) => Number(b.kind === 'directory') - Number(a.kind === 'directory') || a.name.localeCompare(b.name))
}

/** The tree's visible lines: the root's entries, and the entries of every expanded directory beneath its parent. */
export function visibleTreeRows(directories: Readonly<Record<string, DirectoryState>>, expanded: Readonly<Record<string, boolean>>, root = ''): TreeRow[] {
  const rows: TreeRow[] = []
  const walk = (path: string, depth: number) => {
    const state = directories[path]
    if (!state || state.status === 'loading') {
      rows.push({ type: 'note', key: `${path}:loading`, depth, tone: 'muted', text: 'Loading…' })
      return
    }
    if (state.status === 'error') {
      rows.push({ type: 'note', key: `${path}:error`, depth, tone: 'bad', text: state.error.message })
      return
    }
    if (state.entries.length === 0) rows.push({ type: 'note', key: `${path}:empty`, depth, tone: 'muted', text: 'Empty folder' })
    for (const entry of sortEntries(state.entries)) {
      const open = entry.kind === 'directory' && expanded[entry.path] === true
      rows.push({ type: 'entry', entry, depth, expanded: open })
      if (open) walk(entry.path, depth + 1)
    }
    if (state.truncated)
      rows.push({ type: 'note', key: `${path}:cut`, depth, tone: 'muted', text: `Only the first ${state.entries.length} entries are listed.` })
  }
  walk(root, 0)
  return rows
}

/** A byte count for people: `812 B`, `4.2 KiB`, `1.5 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

const byExtension: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  py: 'python',
  json: 'json',
  jsonl: 'json',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  md: 'markdown',
  markdown: 'markdown',
  yml: 'yaml',
  yaml: 'yaml',
  html: 'xml',
  htm: 'xml',
  xml: 'xml',
  svg: 'xml',
  css: 'css',
  sql: 'sql',
  toml: 'ini',
  ini: 'ini',
  cfg: 'ini',
  conf: 'ini',
  diff: 'diff',
  patch: 'diff',
  go: 'go',
  rs: 'rust'
}

const byName: Record<string, string> = { dockerfile: 'dockerfile', makefile: 'makefile', '.exec_history': 'json', '.bashrc': 'bash', '.profile': 'bash' }

/** The highlight.js language of a file from its name, or undefined for plain text. */
export function languageOf(path: string): string | undefined {
  const name = path.split('/').pop()!.toLowerCase()
  if (byName[name]) return byName[name]
  const dot = name.lastIndexOf('.')
  return dot > 0 ? byExtension[name.slice(dot + 1)] : undefined
}

/** The folders leading to a path (`a/b/c.txt` → `a`, `a/b`): expanded so an opened file shows in the tree. */
export function ancestorsOf(path: string): string[] {
  const parts = path.split('/').slice(0, -1)
  return parts.map((_, index) => parts.slice(0, index + 1).join('/'))
}
