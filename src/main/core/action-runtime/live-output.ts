import { StringDecoder } from 'node:string_decoder'
import type { OutputStream } from '../live-resources'
import { visibleText } from '@shared/visible-text'
import { redactText } from './redaction'

/** Longest line kept as a call's last line of output (characters); a longer one is cut with `…`. */
const lastLineChars = 200
/** Longest unfinished line buffered per stream (characters) before it counts as a line anyway. */
const partialChars = 4096

// eslint-disable-next-line no-control-regex -- ESC is what this looks for
const controlSequence = /\x1b\[[\x30-\x3f]{0,31}[\x20-\x2f]*[\x40-\x7e]/g

type CallOutput = {
  secrets: readonly string[]
  decoders: Record<OutputStream, StringDecoder>
  partial: Record<OutputStream, string>
  lastLine?: string
}

/**
 * What the calls in flight are printing, as it arrives (the runners' `onOutput`): for now the
 * last complete line of each call, redacted with the agent's secrets, which the gateway's
 * progress notifications quote while a command runs. Bounded: a call keeps one line and one
 * unfinished line per stream, and nothing once it ends. Decision: only complete lines are told —
 * a line still being written may be half a secret, which redaction cannot recognise.
 */
export class LiveOutput {
  private readonly calls = new Map<string, CallOutput>()

  /** Starts listening for one call; returns its listener (the `ActionContext.output`). */
  begin(callId: string, secrets: readonly string[]): (stream: OutputStream, chunk: Uint8Array) => void {
    const call: CallOutput = { secrets, decoders: { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') }, partial: { stdout: '', stderr: '' } }
    this.calls.set(callId, call)
    return (stream, chunk) => {
      const text = call.partial[stream] + call.decoders[stream].write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
      const end = text.lastIndexOf('\n')
      if (end >= 0) {
        const line = lastNonEmptyLine(text.slice(0, end))
        if (line !== undefined) call.lastLine = line.slice(-partialChars)
      }
      call.partial[stream] = (end >= 0 ? text.slice(end + 1) : text).slice(-partialChars)
    }
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
}

function lastNonEmptyLine(text: string): string | undefined {
  const lines = text.split('\n')
  for (let i = lines.length - 1; i >= 0; i--) {
    // Without colours; every other control character (a carriage return that would let a terminal
    // hide what came before it too) is shown escaped, as the console shows output.
    const line = visibleText(lines[i]!.replace(/\r+$/, '').replace(controlSequence, '')).trimEnd()
    if (line !== '') return line
  }
  return undefined
}
