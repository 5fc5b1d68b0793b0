import { useVirtualizer } from '@tanstack/react-virtual'
import { useRef } from 'react'
import { TextAgent } from '../../../ui'
import { segmentClass, type AnsiLine } from '../lib/ansi'

/** Up to this many lines are drawn in full (wrapped, part of the drawer's own scroll); more scroll in a box of their own. */
export const fullLogLines = 200

/** Height of one line in the scrolling box (px; lines do not wrap there). */
const logLineHeight = 18

/**
 * Lines of output with line numbers, like a CI log: all of them when few, virtualised in a
 * scrolling box when many. Each run is drawn with `TextAgent`: what anser left of control
 * characters (a CR, an OSC, a bidi override) shows escaped and marked, TAB stays layout.
 */
export function ListLogLines({ lines, label, testId }: { lines: AnsiLine[]; label: string; testId: string }) {
  if (lines.length <= fullLogLines) {
    return (
      <div className="history-log" data-testid={testId}>
        {lines.map((line, index) => (
          <LogLine key={index} line={line} number={index + 1} />
        ))}
      </div>
    )
  }
  return <VirtualLogLines lines={lines} label={label} testId={testId} />
}

function VirtualLogLines({ lines, label, testId }: { lines: AnsiLine[]; label: string; testId: string }) {
  const scrollRef = useRef<HTMLDivElement>(null)
  const virtualizer = useVirtualizer({ count: lines.length, getScrollElement: () => scrollRef.current, estimateSize: () => logLineHeight, overscan: 30 })
  const digits = String(lines.length).length
  return (
    <div
      className="history-log history-log-scroll"
      ref={scrollRef}
      tabIndex={0}
      role="region"
      aria-label={label}
      data-testid={testId}
      style={{ ['--ln-digits' as string]: digits }}
    >
      <div className="history-log-body" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => (
          <LogLine key={item.index} line={lines[item.index]!} number={item.index + 1} top={item.start} />
        ))}
      </div>
    </div>
  )
}

function LogLine({ line, number, top }: { line: AnsiLine; number: number; top?: number }) {
  return (
    <div className="history-log-line" style={top === undefined ? undefined : { transform: `translateY(${top}px)` }}>
      <span className="history-log-no" aria-hidden="true">
        {number}
      </span>
      <span className="history-log-text">
        {line.map((segment, index) => (
          <span key={index} className={segmentClass(segment)}>
            <TextAgent text={segment.text} multiline />
          </span>
        ))}
      </span>
    </div>
  )
}
