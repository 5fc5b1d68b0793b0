import { visibleText } from '@shared/visible-text'
import { FileDiff, FilePlus, FileMinus } from 'lucide-react'
import { useMemo } from 'react'
import { TextAgent } from './text-agent'
import { parseUnifiedDiff, type DiffFile, type DiffLine } from './unified-diff'

/**
 * A unified diff drawn for reading: per file its path, hunk headers, both sides' line numbers,
 * added and removed lines in colour; notes (cut markers) stay visible. All of it is the agent's
 * text: drawn with `TextAgent`, line by line, so a hidden character shows where it is. Undefined
 * text that is not a diff is drawn by the caller.
 */
export function DiffView(props: { text: string; testId?: string }) {
  const parsed = useMemo(() => parseUnifiedDiff(props.text), [props.text])
  if (!parsed) {
    return (
      <pre className="diff-plain" data-testid={props.testId} tabIndex={0} role="region" aria-label="Changes">
        <TextAgent text={props.text} multiline />
      </pre>
    )
  }
  return (
    <div data-testid={props.testId}>
      {parsed.files.map((file, index) => (
        <DiffOfFile key={index} file={file} />
      ))}
      {parsed.notes.length > 0 && (
        <div className="diff diff-cut" role="note">
          <TextAgent text={parsed.notes.join('\n')} multiline />
        </div>
      )}
    </div>
  )
}

function DiffOfFile(props: { file: DiffFile }) {
  const { file } = props
  const created = file.oldPath === '/dev/null' || (file.removed === 0 && file.hunks.every((hunk) => hunk.header.startsWith('@@ -0,0 ')))
  const deleted = file.newPath === '/dev/null'
  const Icon = created ? FilePlus : deleted ? FileMinus : FileDiff
  const shownPath = file.newPath === '/dev/null' ? file.oldPath : file.newPath
  return (
    <section className="diff" aria-label={`Changes to ${visibleText(shownPath)}`}>
      <div className="diff-file">
        <Icon size={14} aria-hidden="true" />
        <span>
          <TextAgent text={shownPath} />
        </span>
        {created && <span className="diff-muted">new file</span>}
        {deleted && <span className="diff-muted">deleted</span>}
        <span className="diff-stat" aria-label={`${file.added} lines added, ${file.removed} removed`}>
          <span className="diff-plus">+{file.added}</span>
          <span className="diff-minus">−{file.removed}</span>
        </span>
      </div>
      <div className="diff-lines" tabIndex={0} role="region" aria-label={`Diff of ${visibleText(shownPath)}`}>
        {file.hunks.map((hunk, index) => (
          <div key={index}>
            <div className="diff-hunk">
              <TextAgent text={hunk.header} />
              {hunk.section && (
                <span className="diff-muted">
                  {' '}
                  <TextAgent text={hunk.section} />
                </span>
              )}
            </div>
            {hunk.lines.map((line, at) => (
              <LineOfDiff key={at} line={line} />
            ))}
          </div>
        ))}
      </div>
    </section>
  )
}

function LineOfDiff(props: { line: DiffLine }) {
  const { line } = props
  if (line.kind === 'no-newline')
    return (
      <div className="diff-note">
        <TextAgent text={line.text} />
      </div>
    )
  const kind = line.kind === 'add' ? 'diff-add' : line.kind === 'del' ? 'diff-del' : ''
  const sign = line.kind === 'add' ? '+' : line.kind === 'del' ? '−' : ' '
  return (
    <div className={`diff-line ${kind}`} data-kind={line.kind}>
      <span className="diff-ln">{line.kind !== 'add' ? line.oldLine : ''}</span>
      <span className="diff-ln">{line.kind !== 'del' ? line.newLine : ''}</span>
      <span className="diff-sign">{sign}</span>
      <span className="diff-text">
        <TextAgent text={line.text} multiline />
      </span>
    </div>
  )
}
