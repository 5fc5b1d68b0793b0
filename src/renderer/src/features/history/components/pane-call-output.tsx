import type { HistoryOutput } from '@shared/ipc/history'
import { Scissors } from 'lucide-react'
import { useMemo } from 'react'
import { CopyButton, NoteHiddenCharacters } from '../../../ui'
import { ansiLines, lineText } from '../lib/ansi'
import { hasOutput, outputNotes } from '../lib/call-facts'
import { formatCount } from '../lib/format'
import { ListLogLines } from './list-log-lines'
import { SectionCall } from './section-call'

/** How much of an output the drawer draws (the rest stays in the record or its log file, and it says so). */
export const outputDisplayChars = 2 * 1024 * 1024

/**
 * One output stream as a log viewer: numbered lines with their ANSI colours (rendered as React
 * text, never HTML), where the text is kept (inline or a log file with its sha256), and markers
 * where it was cut: at the agent's output limit, or here for display.
 */
export function PaneCallOutput({ name, stream }: { name: 'stdout' | 'stderr'; stream: HistoryOutput }) {
  const shown = useMemo(() => {
    if (stream.text === null) return undefined
    const clipped = stream.text.length > outputDisplayChars
    const text = clipped ? stream.text.slice(0, outputDisplayChars) : stream.text
    const lines = ansiLines(text)
    const plain = lines.map(lineText).join('\n')
    return { lines, omitted: stream.text.length - text.length, plain, texts: [plain] }
  }, [stream.text])
  const notes = outputNotes(stream)
  const lineCount = shown && stream.text ? shown.lines.length : 0
  return (
    <SectionCall
      title={name}
      testId={`history-${name}`}
      aside={
        lineCount > 0 && shown ? (
          <>
            <span className="history-dim">
              {formatCount(lineCount)} {lineCount === 1 ? 'line' : 'lines'}
            </span>
            <CopyButton text={shown.plain} label="Copy" testId={`history-${name}-copy`} />
          </>
        ) : undefined
      }
    >
      {!hasOutput(stream) && <p className="history-dim history-empty-output">{stream.text === '' ? 'Empty.' : 'Nothing recorded.'}</p>}
      {shown && lineCount > 0 && <NoteHiddenCharacters texts={shown.texts} what={`Its ${name}`} testId={`history-${name}-hidden-note`} />}
      {shown && lineCount > 0 && <ListLogLines lines={shown.lines} label={`${name} of this call`} testId={`history-${name}-lines`} />}
      {stream.truncated && (
        <p className="history-cut" data-testid={`history-${name}-truncated`}>
          <Scissors size={13} aria-hidden="true" /> Cut at the agent’s output limit: the end of {name} was not kept.
        </p>
      )}
      {shown && shown.omitted > 0 && (
        <p className="history-cut">
          <Scissors size={13} aria-hidden="true" /> Showing the first {formatCount(outputDisplayChars)} characters; {formatCount(shown.omitted)} more are in the
          record.
        </p>
      )}
      {notes.map((note) => (
        <p key={note.text} className={`history-note history-note-${note.tone}`}>
          {note.text}
        </p>
      ))}
    </SectionCall>
  )
}
