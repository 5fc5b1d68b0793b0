import { ChevronDown, ChevronRight, File, Folder, FolderOpen, Link2, CircleSlash } from 'lucide-react'
import { useMemo, type KeyboardEvent } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { TextAgent } from '../../../ui'
import { formatBytes, visibleTreeRows, type TreeRow } from '../lib/workspace-tree'
import { useAgentsStore } from '../store/agents-store'

/**
 * The workspace tree: folders list their entries when opened (one `workspace.list` each), files
 * open in the viewer. Symlinks and special files are shown for what they are and never followed.
 * Arrow keys move between lines; Right/Left open and close folders.
 */
export function TreeWorkspace(props: { selected?: string; onOpen(path: string): void }) {
  const { directories, expanded } = useAgentsStore(useShallow((state) => ({ directories: state.directories, expanded: state.expanded })))
  const rows = useMemo(() => visibleTreeRows(directories, expanded), [directories, expanded])
  const toggle = useAgentsStore((state) => state.toggleDirectory)

  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    const buttons = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('button.ag-tree-item')]
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement)
    if (index < 0) return
    const current = buttons[index]!
    const move = (to: number) => buttons[Math.max(0, Math.min(buttons.length - 1, to))]?.focus()
    if (event.key === 'ArrowDown') move(index + 1)
    else if (event.key === 'ArrowUp') move(index - 1)
    else if (event.key === 'Home') move(0)
    else if (event.key === 'End') move(buttons.length - 1)
    else if (
      (event.key === 'ArrowRight' && current.getAttribute('aria-expanded') === 'false') ||
      (event.key === 'ArrowLeft' && current.getAttribute('aria-expanded') === 'true')
    )
      toggle(current.dataset.path!)
    else return
    event.preventDefault()
  }

  return (
    <ul className="ag-tree" data-testid="workspace-tree" aria-label="Workspace files" onKeyDown={onKeyDown}>
      {rows.map((row) => (
        <li key={row.type === 'entry' ? row.entry.path : row.key}>
          <Line row={row} selected={row.type === 'entry' && row.entry.path === props.selected} onToggle={toggle} onOpen={props.onOpen} />
        </li>
      ))}
    </ul>
  )
}

function Line(props: { row: TreeRow; selected: boolean; onToggle(path: string): void; onOpen(path: string): void }) {
  const { row } = props
  const indent = { paddingLeft: `${8 + row.depth * 14}px` }
  if (row.type === 'note') {
    return (
      <div
        className={`ag-tree-note ${row.tone === 'bad' ? 'ag-error-text' : 'ag-muted'}`}
        style={{ paddingLeft: `${26 + row.depth * 14}px` }}
        role={row.tone === 'bad' ? 'alert' : undefined}
      >
        {row.text}
      </div>
    )
  }
  const { entry } = row
  if (entry.kind === 'directory') {
    return (
      <button
        type="button"
        className="ag-tree-item"
        style={indent}
        aria-expanded={row.expanded}
        data-path={entry.path}
        data-testid={`workspace-entry-${entry.path}`}
        onClick={() => props.onToggle(entry.path)}
      >
        {row.expanded ? <ChevronDown size={13} aria-hidden="true" /> : <ChevronRight size={13} aria-hidden="true" />}
        {row.expanded ? (
          <FolderOpen size={14} className="ag-tree-folder" aria-hidden="true" />
        ) : (
          <Folder size={14} className="ag-tree-folder" aria-hidden="true" />
        )}
        <span className="ag-tree-name">
          <TextAgent text={entry.name} />
        </span>
      </button>
    )
  }
  if (entry.kind === 'file') {
    return (
      <button
        type="button"
        className={`ag-tree-item${props.selected ? ' ag-tree-selected' : ''}`}
        style={indent}
        aria-current={props.selected ? 'true' : undefined}
        data-path={entry.path}
        data-testid={`workspace-entry-${entry.path}`}
        onClick={() => props.onOpen(entry.path)}
      >
        <span className="ag-tree-spacer" aria-hidden="true" />
        <File size={14} aria-hidden="true" />
        <span className="ag-tree-name">
          <TextAgent text={entry.name} />
        </span>
        <span className="ag-tree-size">{formatBytes(entry.bytes)}</span>
      </button>
    )
  }
  return (
    <div
      className="ag-tree-item ag-tree-inert"
      style={indent}
      data-testid={`workspace-entry-${entry.path}`}
      title={entry.kind === 'symlink' ? 'A symbolic link: Airlock never follows it' : 'Not a regular file or folder'}
    >
      <span className="ag-tree-spacer" aria-hidden="true" />
      {entry.kind === 'symlink' ? <Link2 size={14} aria-hidden="true" /> : <CircleSlash size={14} aria-hidden="true" />}
      <span className="ag-tree-name">
        <TextAgent text={entry.name} />
      </span>
      <span className="ag-tree-size">{entry.kind === 'symlink' ? 'symlink' : 'special'}</span>
    </div>
  )
}
