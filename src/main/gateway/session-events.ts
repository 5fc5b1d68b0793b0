import { randomBytes } from 'node:crypto'
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'

/** How much one MCP session keeps for clients that lost their stream: events and bytes, the oldest dropped first. */
export const sessionEventLimits = { events: 2000, bytes: 8 * 1024 * 1024 }

/** What a `Last-Event-ID` names in this session's store. */
export type EventLookup = { found: true } | { found: false; reason: 'unknown' | 'dropped' }

/** One kept event: its SSE id and the message it carried. */
export type StoredEvent = { id: string; message: JSONRPCMessage }

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
 *
 * It also knows when a stream has ended — every request of its POST answered (`expect` names
 * them) — so a resume of an ended stream is served as a finite replay by the gateway
 * (`endedStreamAfter`) instead of the SDK's, which would register the replayed stream and keep it
 * open forever: nothing is left to close it, and each such resume would hold one of the client's
 * connections (a pooled client then hangs). The SDK client resumes after every JSON-RPC *error*
 * answer too (it counts only results as "received"), so this is not a corner case.
 */
export class SessionEventStore implements EventStore {
  private readonly prefix = randomBytes(6).toString('hex')
  private readonly events: { seq: number; streamId: string; message: JSONRPCMessage; bytes: number }[] = []
  private nextSeq = 1
  private bytes = 0
  /** Per stream: how many of its events are kept, and the ids of the requests it answered. */
  private readonly streams = new Map<string, { kept: number; answered: Set<string>; ended: boolean }>()
  /** The requests of each POST whose answers are not all stored yet, by request id. */
  private readonly awaited = new Map<string, string[]>()

  constructor(private readonly limits = sessionEventLimits) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const seq = this.nextSeq++
    const bytes = JSON.stringify(message).length + streamId.length
    this.events.push({ seq, streamId, message, bytes })
    this.bytes += bytes
    const stream = this.streams.get(streamId) ?? { kept: 0, answered: new Set<string>(), ended: false }
    this.streams.set(streamId, stream)
    stream.kept++
    if ('id' in message && ('result' in message || 'error' in message) && message.id !== undefined) this.answer(stream, requestKey(message.id))
    while (this.events.length > this.limits.events || (this.bytes > this.limits.bytes && this.events.length > 1)) this.drop()
    return `${this.prefix}-${seq}`
  }

  /** The requests one POST carries: its stream ends when each has its answer. */
  expect(requestIds: RequestId[]): void {
    const keys = requestIds.map(requestKey)
    for (const key of keys) this.awaited.set(key, keys)
    // A POST the SDK refused is never answered: keep only the newest, like the events.
    for (const key of this.awaited.keys()) {
      if (this.awaited.size <= this.limits.events) break
      this.awaited.delete(key)
    }
  }

  /**
   * The events after `lastEventId` when its stream has ended (every request answered), for a
   * finite replay; `undefined` while the stream's calls still run (the SDK's replay then serves
   * the resume and stays open for what is still to come).
   */
  endedStreamAfter(lastEventId: string): StoredEvent[] | undefined {
    const last = this.find(lastEventId)
    if (!last || !this.streams.get(last.streamId)?.ended) return undefined
    return this.events
      .filter((event) => event.seq > last.seq && event.streamId === last.streamId)
      .map((event) => ({ id: `${this.prefix}-${event.seq}`, message: event.message }))
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

  private answer(stream: { answered: Set<string>; ended: boolean }, key: string): void {
    stream.answered.add(key)
    const siblings = this.awaited.get(key) ?? [key]
    if (!siblings.every((sibling) => stream.answered.has(sibling))) return
    stream.ended = true
    for (const sibling of siblings) this.awaited.delete(sibling)
  }

  private drop(): void {
    const dropped = this.events.shift()!
    this.bytes -= dropped.bytes
    const stream = this.streams.get(dropped.streamId)
    if (stream && --stream.kept === 0) this.streams.delete(dropped.streamId)
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

/** A request id as a map key: `1` and `"1"` are different requests. */
const requestKey = (id: RequestId) => JSON.stringify(id)
