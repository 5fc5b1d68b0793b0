import { gatewayErrorCodes, GatewayRefusal } from './gateway-errors'

/** The limits in force, read at every check so a changed setting applies to the next request. */
export type CallLimitSettings = { maxConcurrentCalls(): number; ratePerMinute(): number }

/** A token bucket: `tokens` left at `at` (ms). */
type Bucket = { tokens: number; at: number }

/**
 * Per-agent limits of the gateway (SPEC §8), over all the agent's sessions:
 * - a rate: a token bucket of `ratePerMinute` tokens refilled continuously, so an agent may burst
 *   up to a minute's worth and then sustain the rate; every tool call and tool listing takes one;
 * - concurrency: at most `maxConcurrentCalls` tool calls in flight.
 * A refusal is a `GatewayRefusal` saying which limit, its value, and when to retry; a refused call
 * never reaches the dispatcher, so nothing of it is recorded.
 */
export class CallLimits {
  private readonly buckets = new Map<string, Bucket>()
  private readonly inFlight = new Map<string, number>()

  constructor(
    private readonly settings: CallLimitSettings,
    private readonly now: () => number = () => performance.now()
  ) {}

  /** Takes one unit of the agent's rate budget, or throws `rate_limited`. */
  takeRate(agentId: string): void {
    const rate = this.settings.ratePerMinute()
    const perMs = rate / 60_000
    const now = this.now()
    const bucket = this.buckets.get(agentId) ?? { tokens: rate, at: now }
    const tokens = Math.min(rate, bucket.tokens + (now - bucket.at) * perMs)
    if (tokens < 1) {
      this.buckets.set(agentId, { tokens, at: now })
      const retryAfterMs = Math.ceil((1 - tokens) / perMs)
      throw new GatewayRefusal(
        gatewayErrorCodes.rateLimited,
        `Rate limit: agent ${agentId} may start ${rate} requests per minute (setting gateway.rate_per_minute); retry in ${Math.ceil(retryAfterMs / 1000)} s.`,
        { reason: 'rate_limited', limit: rate, retryAfterMs }
      )
    }
    this.buckets.set(agentId, { tokens: tokens - 1, at: now })
  }

  /**
   * Claims a slot for one call of the agent, or throws `too_many_calls`. The returned function
   * gives the slot back (calling it twice is harmless).
   */
  claimSlot(agentId: string): () => void {
    const limit = this.settings.maxConcurrentCalls()
    const running = this.inFlight.get(agentId) ?? 0
    if (running >= limit) {
      throw new GatewayRefusal(
        gatewayErrorCodes.tooManyCalls,
        `Too many calls at once: agent ${agentId} already has ${running} calls in flight (setting gateway.max_concurrent_calls is ${limit}); retry when one has finished.`,
        { reason: 'too_many_calls', limit }
      )
    }
    this.inFlight.set(agentId, running + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.inFlight.get(agentId) ?? 1) - 1
      if (left > 0) this.inFlight.set(agentId, left)
      else this.inFlight.delete(agentId)
    }
  }

  /** Calls of an agent in flight now. */
  running(agentId: string): number {
    return this.inFlight.get(agentId) ?? 0
  }
}
