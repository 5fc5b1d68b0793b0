import { StringDecoder } from 'node:string_decoder'
import type { OutputStream } from '../live-resources'
import { withoutEscapes } from '@shared/escape-sequences'
import { visibleText } from '@shared/visible-text'
import { redactText } from './redaction'

/** Longest line kept as a call's last line of output (characters); a longer one is cut with `…`. */
const lastLineChars = 200
/** Longest line kept (characters): a longer one, or an unfinished one this long, is cut there and counts as a line. */
const lineChars = 4096
/** How many of a running call's latest lines are kept for a console that opens it late. */
const keptLines = 2000
/** How many characters of a running call's latest lines are kept (whichever bound is met first). */
const keptChars = 256 * 1024

// eslint-disable-next-line no-control-regex -- ESC is what this looks for
const controlSequence = /\x1b\[[\x30-\x3f]{0,31}[\x20-\x2f]*[\x40-\x7e]/g

/** One line a running call printed: its number in the call (from 1), its stream, its text (redacted; escape sequences kept for the console's ANSI view). */
export type LiveLine = { n: number; stream: OutputStream; text: string }

/** Lines of a running call after a given one: what is still kept (the newest), and how many in between were not. */
export type LiveLines = { lines: LiveLine[]; skipped: number }

type CallOutput = {
  secrets: readonly string[]
  /** Lines holding one of these (a runner's own report, such as run_command's directory marker) are not told. */
  hidden: string[]
  decoders: Record<OutputStream, StringDecoder>
  partial: Record<OutputStream, string>
  lines: { stream: OutputStream; text: string }[]
  /** The number of `lines[0]`. */
  first: number
  chars: number
  lastLine?: string
}

/**
 * What the calls in flight are printing, as it arrives (the runners' `onOutput`): the latest lines
 * of each call (the newest 2000 lines and 256 Ki characters at least, twice that at most; older
 * ones are dropped and counted) and
 * its last complete line, both redacted with the agent's secrets when read. The console streams
 * the lines to the History drawer and the gateway's progress notifications quote the last one.
 * Nothing is kept once a call ends: its record has the whole output.
 *
 * Decisions: only complete lines are told — a line still being written may be half a secret, which
 * redaction cannot recognise; a line that never ends is cut at 4096 characters and told as a line.
 * Escape sequences stay in the lines (the console's ANSI view shows colours and escapes the rest,
 * as it does for the recorded output); the last line for progress messages has none.
 */
export class LiveOutput {
  private readonly calls = new Map<string, CallOutput>()
  private listener: ((callId: string) => void) | undefined

  /** Told the id of a call each time it printed at least one new line (one listener: the console's feed). */
  onLines(listener: (callId: string) => void): void {
    this.listener = listener
  }

  /** Starts listening for one call; returns its listener (the `ActionContext.output`). */
  begin(callId: string, secrets: readonly string[]): (stream: OutputStream, chunk: Uint8Array) => void {
    const call: CallOutput = {
      secrets,
      hidden: [],
      decoders: { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') },
      partial: { stdout: '', stderr: '' },
      lines: [],
      first: 1,
      chars: 0
    }
    this.calls.set(callId, call)
    // A line that never ends is cut, but never inside a known secret: the cut waits until a secret
    // that may cross it has arrived whole, and moves before it (each part is redacted on its own).
    const margin = secrets.reduce((longest, secret) => Math.max(longest, secret.length), 0)
    return (stream, chunk) => {
      let text = call.partial[stream] + call.decoders[stream].write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
      let told = false
      for (let end = text.indexOf('\n'); (end >= 0 && end < lineChars) || text.length >= lineChars + margin; end = text.indexOf('\n')) {
        const cut = end >= 0 && end < lineChars ? end : seamBefore(text, lineChars, secrets)
        told = this.push(call, stream, text.slice(0, cut).replace(/\r+$/, '')) || told
        text = text.slice(end === cut ? cut + 1 : cut)
      }
      call.partial[stream] = text
      if (told) this.listener?.(callId)
    }
  }

  /** Lines holding `text` are not told for this call (a runner's own report in its output). */
  hide(callId: string, text: string): void {
    if (text !== '') this.calls.get(callId)?.hidden.push(text)
  }

  /** Whether a call is running and listened to. */
  has(callId: string): boolean {
    return this.calls.has(callId)
  }

  /**
   * The call's lines numbered after `after` (0: from its first), newest last and at most `maxChars`
   * of text, redacted; `skipped` counts the lines after `after` that are no longer kept or did not
   * fit. Undefined when the call is not running.
   */
  linesAfter(callId: string, after = 0, maxChars = 64 * 1024): LiveLines | undefined {
    const call = this.calls.get(callId)
    if (!call) return undefined
    const next = call.first + call.lines.length
    const from = Math.max(after + 1, call.first)
    const lines: LiveLine[] = []
    let chars = 0
    for (let n = next - 1; n >= from; n--) {
      const line = call.lines[n - call.first]!
      if (chars + line.text.length > maxChars && lines.length > 0) break
      chars += line.text.length
      lines.push({ n, stream: line.stream, text: redactedLine(line.text, call.secrets) })
    }
    lines.reverse()
    return { lines, skipped: Math.max(0, next - Math.max(after + 1, 1) - lines.length) }
  }

  /** The last complete line the call printed, redacted and at most 200 characters; `undefined` before the first. */
  lastLine(callId: string): string | undefined {
    const call = this.calls.get(callId)
    if (call?.lastLine === undefined) return undefined
    const line = redactText(call.lastLine, call.secrets)
    return line.length > lastLineChars ? `${line.slice(0, lastLineChars - 1)}…` : line
  }

  /** Forgets a call that ended. */
  end(callId: string): void {
    this.calls.delete(callId)
  }

  private push(call: CallOutput, stream: OutputStream, text: string): boolean {
    if (call.hidden.some((hidden) => text.includes(hidden))) return false
    // Without colours; every other control character (a carriage return that would let a terminal
    // hide what came before it too) is shown escaped, as the console shows output.
    const plain = visibleText(text.replace(controlSequence, '')).trimEnd()
    if (plain !== '') call.lastLine = plain
    call.lines.push({ stream, text })
    call.chars += text.length
    // Trimmed in batches (a flood of short lines must not shift the array per line): back to the
    // bounds once twice either is reached.
    if (call.lines.length <= 2 * keptLines && call.chars <= 2 * keptChars) return true
    let drop = 0
    while (call.lines.length - drop > keptLines || (call.chars > keptChars && call.lines.length - drop > 1)) {
      call.chars -= call.lines[drop]!.text.length
      drop += 1
    }
    call.lines.splice(0, drop)
    call.first += drop
    return true
  }
}

/**
 * A line redacted as the console will show it: escape sequences are dropped there, so a secret
 * split by colour codes (`s3cr\x1b[1m\x1b[22met`, or `grep --color` around a token) must be found
 * without them. When that finds something the raw line's redaction missed, the line is told
 * without its escapes (its colours lost) and redacted; otherwise as it came, redacted.
 */
function redactedLine(text: string, secrets: readonly string[]): string {
  const raw = redactText(text, secrets)
  if (!text.includes('\x1b')) return raw
  const plain = withoutEscapes(text)
  const redacted = redactText(plain, secrets)
  return redacted !== plain && redacted !== withoutEscapes(raw) ? redacted : raw
}

/** Where to cut a line that never ends, at `at` or before the start of a known secret that crosses it. */
function seamBefore(text: string, at: number, secrets: readonly string[]): number {
  let cut = at
  for (const secret of secrets) {
    if (secret.length < 2) continue
    const start = text.indexOf(secret, Math.max(0, at - secret.length + 1))
    if (start >= 0 && start < at && start + secret.length > at) cut = Math.min(cut, start)
  }
  return cut > 0 ? cut : at
}
