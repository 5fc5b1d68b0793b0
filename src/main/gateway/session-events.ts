import { randomBytes } from 'node:crypto'
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/** How much one MCP session keeps for clients that lost their stream: events and bytes, the oldest dropped first. */
export const sessionEventLimits = { events: 2000, bytes: 8 * 1024 * 1024 }

/** What a `Last-Event-ID` names in this session's store. */
export type EventLookup = { found: true } | { found: false; reason: 'unknown' | 'dropped' }

/**
 * The SSE events of one MCP session (SPEC §8, Streamable HTTP resumability), in memory: every
 * message the SDK sends on a stream gets an id here, and a client whose stream dropped (a network
 * blip, a laptop asleep) resumes with `Last-Event-ID` and is sent what it missed — the result of
 * a call that ran to its end meanwhile included (a dropped stream does not cancel the call).
 *
 * Ids are `<random prefix of this session>-<sequence>`: one session's ids mean nothing to another
 * (each session has its own store, reached only through its own agent's token). Bounded per
 * session by `sessionEventLimits` (count and bytes); the oldest go first, and `lookup` tells a
 * resume that asks for a dropped one, so the gateway refuses it with a clear message. Decision:
 * memory, not the database — an event is only worth keeping while the session's process lives;
 * after a restart the calls in flight ended `interrupted` (history has them).
 */
export class SessionEventStore implements EventStore {
  private readonly prefix = randomBytes(6).toString('hex')
  private readonly events: { seq: number; streamId: string; message: JSONRPCMessage; bytes: number }[] = []
  private nextSeq = 1
  private bytes = 0

  constructor(private readonly limits = sessionEventLimits) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const seq = this.nextSeq++
    const bytes = JSON.stringify(message).length + streamId.length
    this.events.push({ seq, streamId, message, bytes })
    this.bytes += bytes
    while (this.events.length > this.limits.events || (this.bytes > this.limits.bytes && this.events.length > 1)) this.bytes -= this.events.shift()!.bytes
    return `${this.prefix}-${seq}`
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.find(eventId)?.streamId
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const last = this.find(lastEventId)
    if (!last) throw new Error(`unknown event id ${JSON.stringify(lastEventId)}`)
    for (const event of this.events) if (event.seq > last.seq && event.streamId === last.streamId) await send(`${this.prefix}-${event.seq}`, event.message)
    return last.streamId
  }

  /** Whether `eventId` can be resumed from: one of this session's, still kept. */
  lookup(eventId: string): EventLookup {
    const seq = this.seqOf(eventId)
    if (seq === undefined || seq >= this.nextSeq) return { found: false, reason: 'unknown' }
    return this.find(eventId) ? { found: true } : { found: false, reason: 'dropped' }
  }

  /** How many events and bytes are kept now. */
  size(): { events: number; bytes: number } {
    return { events: this.events.length, bytes: this.bytes }
  }

  private find(eventId: string) {
    const seq = this.seqOf(eventId)
    return seq === undefined ? undefined : this.events.find((event) => event.seq === seq)
  }

  private seqOf(eventId: string): number | undefined {
    const match = /^([0-9a-f]{12})-([1-9][0-9]{0,15})$/.exec(eventId)
    return match && match[1] === this.prefix ? Number(match[2]) : undefined
  }
}
