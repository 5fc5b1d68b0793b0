import { useEffect, useState } from 'react'

/** How long ago an ISO time was, in the largest whole unit (`12s`, `4m`, `3h`, `2d`). */
export function ageOf(iso: string, now: number): string {
  const ms = Math.max(0, now - Date.parse(iso))
  if (Number.isNaN(ms)) return '—'
  const s = Math.floor(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 48) return `${h}h`
  return `${Math.floor(h / 24)}d`
}

/** The current time, re-read every `everyMs` so ages stay true while a view is open. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs)
    return () => clearInterval(timer)
  }, [everyMs])
  return now
}

/** An age (`4m ago`) with the exact local time on hover. */
export function TimeAgo(props: { iso: string; suffix?: boolean }) {
  const now = useNow(5000)
  return (
    <time dateTime={props.iso} title={new Date(props.iso).toLocaleString()} className="tabular">
      {ageOf(props.iso, now)}
      {props.suffix === false ? '' : ' ago'}
    </time>
  )
}
