import { visibleText } from '@shared/visible-text'
import { FileDiff, FilePlus } from 'lucide-react'
import { useMemo } from 'react'
import { TextAgent } from '../../../ui'
import { parseUnifiedDiff, type DiffFile, type DiffLine } from '../lib/unified-diff'

/**
 * What the request would do, as the host previewed it: a file change drawn as a diff (hunk
 * headers, both sides' line numbers, added and removed lines in colour), anything else (a
 * program's files, a skill) as plain text. Cut markers stay visible where they are. All of it is
 * the agent's text: drawn with `TextAgent`, line by line, so a hidden character shows where it is.
 */
export function PanePreview(props: { preview: string }) {
  const parsed = useMemo(() => parseUnifiedDiff(props.preview), [props.preview])
  if (!parsed) {
    return (
      <pre className="appr-preview" data-testid="approval-preview" tabIndex={0} role="region" aria-label="Preview">
        <TextAgent text={props.preview} multiline />
      </pre>
    )
  }
  return (
    <div data-testid="approval-diff">
      {parsed.files.map((file, index) => (
        <DiffOfFile key={index} file={file} />
      ))}
      {parsed.notes.length > 0 && (
        <div className="appr-diff appr-diff-cut" role="note">
          <TextAgent text={parsed.notes.join('\n')} multiline />
        </div>
      )}
    </div>
  )
}

function DiffOfFile(props: { file: DiffFile }) {
  const { file } = props
  const created = file.oldPath === '/dev/null' || (file.removed === 0 && file.hunks.every((hunk) => hunk.header.startsWith('@@ -0,0 ')))
  const Icon = created ? FilePlus : FileDiff
  const shownPath = file.newPath === '/dev/null' ? file.oldPath : file.newPath
  return (
    <section className="appr-diff" aria-label={`Changes to ${visibleText(shownPath)}`}>
      <div className="appr-diff-file">
        <Icon size={14} aria-hidden="true" />
        <span>
          <TextAgent text={shownPath} />
        </span>
        {created && <span className="appr-muted">new file</span>}
        <span className="appr-diff-stat" aria-label={`${file.added} lines added, ${file.removed} removed`}>
          <span className="appr-add">+{file.added}</span>
          <span className="appr-del">−{file.removed}</span>
        </span>
      </div>
      <div className="appr-diff-lines" tabIndex={0} role="region" aria-label={`Diff of ${visibleText(shownPath)}`}>
        {file.hunks.map((hunk, index) => (
          <div key={index}>
            <div className="appr-diff-hunk">
              <TextAgent text={hunk.header} />
              {hunk.section && (
                <span className="appr-muted">
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
      <div className="appr-diff-note">
        <TextAgent text={line.text} />
      </div>
    )
  const kind = line.kind === 'add' ? 'appr-diff-add' : line.kind === 'del' ? 'appr-diff-del' : ''
  const sign = line.kind === 'add' ? '+' : line.kind === 'del' ? '−' : ' '
  return (
    <div className={`appr-diff-line ${kind}`} data-kind={line.kind}>
      <span className="appr-diff-ln">{line.kind !== 'add' ? line.oldLine : ''}</span>
      <span className="appr-diff-ln">{line.kind !== 'del' ? line.newLine : ''}</span>
      <span className="appr-diff-sign">{sign}</span>
      <span className="appr-diff-text"><TextAgent text={line.text} multiline /></span>
    </div>
  )
}
