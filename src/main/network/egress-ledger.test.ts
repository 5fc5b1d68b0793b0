import { describe, expect, it } from 'vitest'
import type { EgressRecord } from '@shared/network'
import { EgressLedger } from './egress-ledger'

const entry = (host: string, decision: EgressRecord['decision'] = 'denied'): EgressRecord => ({
  host,
  port: 443,
  decision,
  bytesUp: 0,
  bytesDown: 0,
  at: '2026-12-02T00:00:00Z'
})

describe('the egress ledger', () => {
  it("keeps each run its own, and drops what is decided after its run ended (never the next run's)", () => {
    const ledger = new EgressLedger()
    ledger.expect('a')
    ledger.expect('b')
    ledger.add('a', entry('one.test'))
    ledger.add('b', entry('two.test'))
    expect(ledger.drain('a').map((record) => record.host)).toEqual(['one.test'])
    // Run a is over: a connection of it the operator answered late is recorded nowhere.
    ledger.add('a', entry('late.test'))
    ledger.expect('c')
    expect(ledger.drain('c')).toEqual([])
    expect(ledger.drain('b').map((record) => record.host)).toEqual(['two.test'])
  })

  it('a windowed endpoint credits the one run going on, shares between overlapping runs (the first to end takes them), and none when idle', () => {
    const ledger = new EgressLedger()
    expect(ledger.current()).toBeUndefined()
    ledger.expect('a')
    expect(ledger.current()).toBe('a')
    ledger.expect('b')
    const both = ledger.current()!
    ledger.add(both, entry('overlap.test', 'allowed'))
    expect(ledger.drain('b').map((record) => record.host)).toEqual(['overlap.test'])
    expect(ledger.drain('a')).toEqual([])
    ledger.add(both, entry('idle.test'))
    ledger.expect('c')
    expect(ledger.drain('c')).toEqual([])
  })
})
