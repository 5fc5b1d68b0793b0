import { visibleSegments } from '@shared/visible-text'
import { memo, useMemo } from 'react'

/**
 * Text an agent wrote (a summary, a command word, a diff line, stdout, a file name), drawn so that
 * nothing in it hides or reorders what the operator reads: each hidden character (a bidi
 * override or isolate, a zero-width space, ESC, CR…) drawn as its escape (`\u202e`) in a marked
 * span named on hover. `multiline` keeps LF and TAB as layout, for a block that keeps its lines
 * (pre-wrap); elsewhere they show as `\x0a` and `\x09`, muted. Every view draws agent text with this.
 */
export const TextAgent = memo(function TextAgent(props: { text: string; multiline?: boolean }) {
  const segments = useMemo(() => visibleSegments(props.text, { multiline: props.multiline }), [props.text, props.multiline])
  return (
    <>
      {segments.map((segment, index) =>
        segment.kind === 'text' ? (
          segment.text
        ) : (
          <mark
            key={index}
            className={segment.layout ? 'text-hidden-char text-hidden-char-layout' : 'text-hidden-char'}
            title={`${segment.layout ? 'whitespace' : 'hidden character'} ${segment.label}`}
            data-hidden-char={segment.label.split(' ')[0]}
          >
            {segment.text}
          </mark>
        )
      )}
    </>
  )
})
