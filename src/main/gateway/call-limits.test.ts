import { describe, expect, it } from 'vitest'
import { CallLimits } from './call-limits'
import { GatewayRefusal } from './gateway-errors'

/** Limits on a clock the test moves. */
function limits(settings: { max: number; rate: number }) {
  let now = 0
  const subject = new CallLimits({ maxConcurrentCalls: () => settings.max, ratePerMinute: () => settings.rate }, () => now)
  return { subject, advance: (ms: number) => (now += ms) }
}

const refusal = (run: () => unknown): GatewayRefusal => {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayRefusal)
    return error as GatewayRefusal
  }
  throw new Error('expected a refusal')
}

describe('CallLimits', () => {
  it("a burst of a minute's budget passes, the next is refused with when to retry; the budget refills with time", () => {
    const { subject, advance } = limits({ max: 10, rate: 60 })
    for (let i = 0; i < 60; i += 1) subject.takeRate('a')
    const refused = refusal(() => subject.takeRate('a'))
    expect(refused).toMatchObject({ code: -32029, data: { reason: 'rate_limited', limit: 60, retryAfterMs: 1000 } })
    expect(refused.message).toBe('Rate limit: agent a may start 60 requests per minute (setting gateway.rate_per_minute); retry in 1 s.')
    // Another agent has its own budget.
    subject.takeRate('b')
    advance(1000)
    subject.takeRate('a')
    expect(() => subject.takeRate('a')).toThrow(GatewayRefusal)
  })

  it('concurrency: slots up to the limit, the next refused; a released slot (even released twice) frees exactly one', () => {
    const settings = { max: 2, rate: 1000 }
    const { subject } = limits(settings)
    const first = subject.claimSlot('a')
    subject.claimSlot('a')
    expect(refusal(() => subject.claimSlot('a'))).toMatchObject({ code: -32020, data: { reason: 'too_many_calls', limit: 2 } })
    first()
    first()
    expect(subject.running('a')).toBe(1)
    subject.claimSlot('a')
    expect(() => subject.claimSlot('a')).toThrow(/already has 2 calls in flight \(setting gateway\.max_concurrent_calls is 2\)/)
    // A changed setting applies to the next claim.
    settings.max = 3
    subject.claimSlot('a')
    expect(subject.running('a')).toBe(3)
  })
})
