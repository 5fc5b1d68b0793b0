import { workspaceReadLimit } from '@shared/ipc/workspace'
import { FileText, X } from 'lucide-react'
import { Fragment, useMemo, type ReactNode } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { ErrorBanner, IconButton, Loading, TimeAgo } from '../../../ui'
import { highlightLimit, highlightTree, splitLines, type HighlightNode } from '../lib/highlight'
import { formatBytes, languageOf } from '../lib/workspace-tree'
import { useAgentsStore } from '../store/agents-store'

/** The open file: path, size, age and language, then its text with line numbers and syntax colours (binary files: only their size). */
export function PaneWorkspaceFile(props: { onClose(): void }) {
  const file = useAgentsStore(useShallow((state) => state.file))
  if (file.status === 'idle') {
    return (
      <div className="ag-file ag-file-none" data-testid="workspace-file-view">
        <FileText size={22} aria-hidden="true" />
        <p>Pick a file in the tree or in the recent changes to read it here.</p>
        <p className="ag-muted ag-small">Read-only: nothing here writes to the workspace.</p>
      </div>
    )
  }
  const language = file.path ? languageOf(file.path) : undefined
  const value = file.value
  return (
    <div className="ag-file" data-testid="workspace-file-view">
      <header className="ag-file-head">
        <code className="ag-file-path" title={file.path} data-testid="workspace-file-path">
          {file.path}
        </code>
        {value && (
          <span className="ag-file-meta">
            {formatBytes(value.bytes)} · <TimeAgo iso={value.modifiedAt} />
            {language && !value.binary && ` · ${language}`}
          </span>
        )}
        <IconButton label="Close the file" icon={<X size={14} />} onClick={props.onClose} />
      </header>
      {file.status === 'loading' && <Loading label="Reading…" />}
      {file.status === 'error' && <ErrorBanner message={file.error!} />}
      {value && value.binary && (
        <p className="ag-file-note" data-testid="workspace-file-binary">
          Binary content ({formatBytes(value.bytes)}): not shown.
        </p>
      )}
      {value && value.text !== null && (
        <>
          {value.truncated && (
            <p className="ag-file-note" data-testid="workspace-file-truncated">
              Showing the first {formatBytes(workspaceReadLimit)} of {formatBytes(value.bytes)}.
            </p>
          )}
          <CodeLines text={value.text} language={language} />
        </>
      )}
    </div>
  )
}

function CodeLines({ text, language }: { text: string; language: string | undefined }) {
  const lines = useMemo(() => splitLines(highlightTree(text, language)), [text, language])
  return (
    <>
      {language && text.length > highlightLimit && <p className="ag-file-note">Large file: shown without syntax colours.</p>}
      <div className="ag-code-view" tabIndex={0} role="region" aria-label="File content" data-testid="workspace-file-content">
        <table className="ag-code-lines">
          <tbody>
            {lines.map((line, index) => (
              <tr key={index}>
                <td className="ag-line-no" aria-hidden="true">
                  {index + 1}
                </td>
                <td className="ag-line hljs">{line.length === 0 ? '\u200b' : render(line)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  )
}

function render(nodes: HighlightNode[]): ReactNode {
  return nodes.map((node, index) =>
    typeof node === 'string' ? (
      <Fragment key={index}>{node}</Fragment>
    ) : (
      <span key={index} className={node.className}>
        {render(node.children)}
      </span>
    )
  )
}
