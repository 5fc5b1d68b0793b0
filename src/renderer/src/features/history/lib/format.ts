export { formatDuration, formatElapsed, runTime, statusLabel, statusTone } from '../../../lib/call-outcome'

const countFormat = new Intl.NumberFormat('en-US')

/** A count with thousands separators: `100,006`. */
export function formatCount(n: number): string {
  return countFormat.format(n)
}

/** `1 call`, `100,006 calls`. */
export function callsText(n: number): string {
  return `${formatCount(n)} ${n === 1 ? 'call' : 'calls'}`
}

const pad = (n: number) => String(n).padStart(2, '0')
const calendarDate = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
const timeOfDay = (date: Date) => `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`

/** A start time for the table: `MM-DD HH:MM:SS` local (the year when it is not this year's). */
export function formatStarted(iso: string, now: Date): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const day = date.getFullYear() === now.getFullYear() ? `${pad(date.getMonth() + 1)}-${pad(date.getDate())}` : calendarDate(date)
  return `${day} ${timeOfDay(date)}`
}

/** A full local timestamp with milliseconds for the drawer: `2026-01-02 09:05:07.123`. */
export function formatTimestamp(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : `${calendarDate(date)} ${timeOfDay(date)}.${String(date.getMilliseconds()).padStart(3, '0')}`
}

/** A byte count: `512 B`, `4.2 KiB`, `3.1 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}

const previewKeys = ['command', 'path', 'query', 'url', 'sourceCode', 'sql', 'pattern']

/**
 * One line of what a call was asked to do: its command, path, query or code, else its JSON. Runs
 * of spaces, tabs and newlines become one space; any other character stays for the row to show
 * (escaped, if hidden): `\s` would also fold CR, U+2028 and the BOM into a harmless-looking space.
 */
export function inputPreview(input: unknown, maxLength = 160): string {
  let text: string
  if (input === null || input === undefined) text = ''
  else if (typeof input !== 'object') text = String(input)
  else {
    const record = input as Record<string, unknown>
    const key = previewKeys.find((name) => typeof record[name] === 'string')
    text = key ? (record[key] as string) : JSON.stringify(input)
  }
  const oneLine = text.replace(/[ \t\n]+/g, ' ').replace(/^ | $/g, '')
  return oneLine.length > maxLength ? `${oneLine.slice(0, maxLength - 1)}…` : oneLine
}

/** A recorded key as words for a label: `handleId` → `handle id`, `bundle_digest` → `bundle digest`. */
export function humanKey(key: string): string {
  return key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim()
}
