import { withoutEscapes } from '@shared/escape-sequences'
import { useEffect, useState } from 'react'
import { airlock } from '../../../lib/airlock-client'
import { TextAgent } from '../../../ui'

/**
 * The last line a running call printed, as it arrives (`history.output`), for the agent's recent
 * calls: one line, colours dropped, every other control character shown escaped (`TextAgent`).
 * The History drawer has the whole stream; nothing is kept once the row is no longer running.
 */
export function LineLiveCall({ callId }: { callId: string }) {
  const [line, setLine] = useState<string>()
  useEffect(() => {
    let live = true
    void airlock.history.live({ id: callId }).then((answer) => {
      const last = answer.ok ? answer.value.lines.at(-1)?.text : undefined
      if (live && last !== undefined) setLine((current) => current ?? last)
    })
    const stop = airlock.history.onOutput((pushed) => {
      if (pushed.id === callId && pushed.lines.length > 0) setLine(pushed.lines.at(-1)!.text)
    })
    return () => {
      live = false
      stop()
    }
  }, [callId])
  if (line === undefined) return null
  return (
    <span className="ag-call-live" data-testid={`agent-call-live-${callId}`}>
      <TextAgent text={withoutEscapes(line)} />
    </span>
  )
}
