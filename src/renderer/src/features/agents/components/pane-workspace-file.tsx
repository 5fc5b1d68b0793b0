import { workspaceReadLimit } from '@shared/ipc/workspace'
import { FileText, X } from 'lucide-react'
import { useMemo, type ReactNode } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { visibleText } from '@shared/visible-text'
import { ErrorBanner, IconButton, Loading, TextAgent, TimeAgo } from '../../../ui'
import { highlightLines, type HighlightNode } from '../lib/highlight'
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
        <code className="ag-file-path" title={visibleText(file.path ?? '')} data-testid="workspace-file-path">
          <TextAgent text={file.path ?? ''} />
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
      {file.status === 'error' && <ErrorBanner message={file.error!.message} />}
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

/** The viewer draws at most this many lines: a file of newlines must not become 250 000 table rows. */
const viewerLineLimit = 5000

function CodeLines({ text, language }: { text: string; language: string | undefined }) {
  const { lines, coloured } = useMemo(() => highlightLines(text, language), [text, language])
  const shown = lines.length > viewerLineLimit ? lines.slice(0, viewerLineLimit) : lines
  return (
    <>
      {language && coloured === 'some' && <p className="ag-file-note">Large file: syntax colours on part of it only.</p>}
      {language && coloured === 'none' && text.length > 0 && <p className="ag-file-note">Shown without syntax colours.</p>}
      {shown.length < lines.length && (
        <p className="ag-file-note" data-testid="workspace-file-line-cut">
          Showing the first {viewerLineLimit.toLocaleString()} of {lines.length.toLocaleString()} lines.
        </p>
      )}
      <div className="ag-code-view" tabIndex={0} role="region" aria-label="File content" data-testid="workspace-file-content">
        <table className="ag-code-lines">
          <tbody>
            {shown.map((line, index) => (
              <tr key={index}>
                <td className="ag-line-no" aria-hidden="true">
                  {index + 1}
                </td>
                <td className="ag-line hljs">{render(line)}</td>
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
      <TextAgent key={index} text={node} multiline />
    ) : (
      <span key={index} className={node.className}>
        {render(node.children)}
      </span>
    )
  )
}
