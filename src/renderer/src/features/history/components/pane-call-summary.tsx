import type { HistoryDetail } from '@shared/ipc/history'
import { useMemo } from 'react'
import { NoteHiddenCharacters, TextAgent } from '../../../ui'
import { callTexts, inputFields } from '../lib/call-facts'
import { formatDuration, formatTimestamp, runTime } from '../lib/format'
import { FactCall, SectionCall } from './section-call'

/**
 * The head of the call drawer: who ran it, when, how long, how it ended, its error and its input
 * (the agent's text, drawn with `TextAgent`, under a note when it hides characters).
 */
export function PaneCallSummary({ detail }: { detail: HistoryDetail }) {
  const fields = inputFields(detail.inputSummary)
  const texts = useMemo(() => callTexts(detail), [detail])
  return (
    <>
      <NoteHiddenCharacters texts={texts} what="This call’s input or error" consequence="The call was made with them." testId="history-hidden-note" />
      <dl className="history-facts" data-testid="history-detail-facts">
        <FactCall label="Agent">{detail.agentId ?? '—'}</FactCall>
        <FactCall label="Provider">{detail.providerId ?? <span className="history-dim">none</span>}</FactCall>
        <FactCall label="Exit code" testId="history-detail-exit">
          <span className={`history-mono${detail.exitCode !== null && detail.exitCode !== 0 ? ' history-error-text' : ''}`}>{detail.exitCode ?? '—'}</span>
        </FactCall>
        {detail.waitMs === null ? (
          <FactCall label="Duration">
            <span className="history-mono">{formatDuration(detail.durationMs)}</span>
          </FactCall>
        ) : (
          <FactCall label="Waited · ran" testId="history-detail-durations">
            <span className="history-mono" title="The wait for your approval, then the run itself (the run time is what percentiles count)">
              {formatDuration(detail.waitMs)} · {formatDuration(runTime(detail))}
            </span>
          </FactCall>
        )}
        <FactCall label="Started">
          <span className="history-mono">{formatTimestamp(detail.startedAt)}</span>
        </FactCall>
        <FactCall label="Finished">
          <span className="history-mono">{detail.finishedAt ? formatTimestamp(detail.finishedAt) : 'still running'}</span>
        </FactCall>
        <FactCall label="Session" wide>
          <span className="history-mono history-dim">{detail.sessionId ?? '—'}</span>
        </FactCall>
      </dl>
      {detail.error && (
        <div className="history-callout history-callout-bad" role="note" data-testid="history-detail-error">
          <code>
            <TextAgent text={detail.error.code} />
          </code>
          <span>
            <TextAgent text={detail.error.message} />
          </span>
        </div>
      )}
      <SectionCall title="Input" testId="history-detail-input">
        {fields.length === 0 ? (
          <p className="history-dim">None recorded.</p>
        ) : (
          <dl className="history-input">
            {fields.map((field) => (
              <div key={field.key} className={field.block ? 'history-input-field is-block' : 'history-input-field'}>
                <dt>
                  <TextAgent text={field.key} />
                </dt>
                <dd>
                  {field.block ? (
                    <pre className="history-code">
                      <TextAgent text={field.text} multiline />
                    </pre>
                  ) : (
                    <code>
                      <TextAgent text={field.text} />
                    </code>
                  )}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </SectionCall>
    </>
  )
}
