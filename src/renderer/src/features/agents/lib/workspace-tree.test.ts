import type { WorkspaceEntry } from '@shared/ipc/workspace'
import { describe, expect, it } from 'vitest'
import { agentsHash, historyLink, readAgentsQuery } from './agents-url'
import { ancestorsOf, formatBytes, languageOf, visibleTreeRows, type DirectoryState } from './workspace-tree'

const entry = (path: string, kind: WorkspaceEntry['kind'], bytes = 0): WorkspaceEntry => ({
  name: path.split('/').pop()!,
  path,
  kind,
  bytes,
  modifiedAt: '2026-01-01T00:00:00Z'
})

describe('workspace tree', () => {
  const directories: Record<string, DirectoryState> = {
    '': {
      status: 'ready',
      entries: [entry('z.txt', 'file', 5), entry('src', 'directory'), entry('link', 'symlink'), entry('a', 'directory')],
      truncated: false
    },
    src: { status: 'ready', entries: [entry('src/main.py', 'file', 10), entry('src/lib', 'directory')], truncated: true },
    'src/lib': { status: 'loading' },
    a: { status: 'error', error: { code: 'workspace.unreadable', message: 'a is not readable' } }
  }

  it('lists folders first, then by name, and only opens expanded folders', () => {
    const rows = visibleTreeRows(directories, {})
    expect(rows.map((r) => (r.type === 'entry' ? r.entry.path : r.text))).toEqual(['a', 'src', 'link', 'z.txt'])
  })

  it('nests open folders with their depth, and says what is loading, failed or cut', () => {
    const rows = visibleTreeRows(directories, { src: true, 'src/lib': true, a: true })
    expect(rows.map((r) => `${r.depth}:${r.type === 'entry' ? r.entry.path : r.text}`)).toEqual([
      '0:a',
      '1:a is not readable',
      '0:src',
      '1:src/lib',
      '2:Loading…',
      '1:src/main.py',
      '1:Only the first 2 entries are listed.',
      '0:link',
      '0:z.txt'
    ])
  })

  it('says so when a folder is empty or not listed yet', () => {
    expect(visibleTreeRows({ '': { status: 'ready', entries: [], truncated: false } }, {}).map((r) => r.type === 'note' && r.text)).toEqual(['Empty folder'])
    expect(visibleTreeRows({}, {}).map((r) => r.type === 'note' && r.text)).toEqual(['Loading…'])
  })

  it('finds a language from the name, and the folders above a path', () => {
    expect(languageOf('src/app.tsx')).toBe('typescript')
    expect(languageOf('Dockerfile')).toBe('dockerfile')
    expect(languageOf('notes/plan.md')).toBe('markdown')
    expect(languageOf('data.bin')).toBeUndefined()
    expect(languageOf('.hidden')).toBeUndefined()
    expect(ancestorsOf('a/b/c.txt')).toEqual(['a', 'a/b'])
    expect(ancestorsOf('c.txt')).toEqual([])
  })

  it('formats sizes', () => {
    expect(formatBytes(812)).toBe('812 B')
    expect(formatBytes(4300)).toBe('4.2 KiB')
    expect(formatBytes(1536 * 1024)).toBe('1.5 MiB')
  })
})

describe('agents URL', () => {
  it('reads and writes the view state, leaving defaults out', () => {
    expect(readAgentsQuery('#/agents')).toEqual({ agent: undefined, tab: 'overview', file: undefined })
    expect(readAgentsQuery('#/agents?agent=coder&tab=workspace&file=notes%2Fa.md')).toEqual({ agent: 'coder', tab: 'workspace', file: 'notes/a.md' })
    expect(readAgentsQuery('#/agents?tab=nonsense').tab).toBe('overview')
    expect(agentsHash({ agent: 'coder', tab: 'overview', file: 'x' })).toBe('#/agents?agent=coder')
    expect(agentsHash({ agent: 'coder', tab: 'workspace', file: 'notes/a.md' })).toBe('#/agents?agent=coder&tab=workspace&file=notes%2Fa.md')
    expect(readAgentsQuery(agentsHash({ agent: 'a b', tab: 'connect' }))).toEqual({ agent: 'a b', tab: 'connect', file: undefined })
  })

  it('links to History filtered to the agent', () => {
    expect(historyLink('coder')).toBe('#/history?agent=coder')
    expect(historyLink('coder', 'call-1')).toBe('#/history?agent=coder&id=call-1')
  })
})
