import { beforeAll, describe, expect, it } from 'vitest'
import type { CommandPolicyInput } from '../../src/main/core/policy/command-analysis'
import { decideCommandLine, loadCommandAnalyzer, type CommandAnalyzer } from '../../src/main/core/policy'
import {
  familyEscapes,
  matrixCommands,
  matrixInput,
  matrixWrappers,
  mustStillRun,
  publishEscapes,
  pushEscapes,
  riskEscapes,
  type CarriedCase
} from './policy-corpus-carried'

// "The deny side fails toward asking": every attempt of the attack round, decided by the real
// analyzer and rules under ask: never and ask: on_risk (exact decision and rule), a matrix of
// wrappers × blocked commands where nothing may run, and ordinary lines that must keep running.

const base: CommandPolicyInput = { ask: 'on_risk', network: 'none', denylist: [], allowlist: [] }
let analyzer: CommandAnalyzer

beforeAll(async () => {
  analyzer = await loadCommandAnalyzer()
})

const decide = (line: string, input: Partial<CommandPolicyInput>) => decideCommandLine(analyzer.analyze(line), { ...base, ...input })
const label = (c: CarriedCase) => `${JSON.stringify(c.line).slice(0, 90)}${c.input ? ` with ${JSON.stringify(c.input)}` : ''}`

describe.each([
  ['the profile denylist git push', pushEscapes],
  ['the profile denylist npm publish', publishEscapes],
  ['the built-in families', familyEscapes],
  ['risk flags under on_risk', riskEscapes]
])('attack round: %s', (_name, cases) => {
  it.each(cases.map((c) => [label(c), c] as const))('%s', (_label, c) => {
    for (const [ask, [decision, rule]] of [
      ['never', c.never],
      ['on_risk', c.onRisk]
    ] as const) {
      const d = decide(c.line, { ...c.input, ask })
      expect({ ask, decision: d.decision, rule: d.rule }, `${d.reason} | commands ${JSON.stringify(d.commands)}`).toEqual({ ask, decision, rule })
      expect(d.reason.length, 'the reason says why').toBeGreaterThan(10)
    }
  })
})

describe('wrappers × blocked commands', () => {
  it(`none of ${matrixWrappers.length} wrappers × ${matrixCommands.length} commands runs, under never or on_risk`, () => {
    const ran: string[] = []
    for (const wrapper of matrixWrappers) {
      for (const command of matrixCommands) {
        const line = wrapper.replaceAll('CMD', command)
        for (const ask of ['never', 'on_risk'] as const) {
          const d = decide(line, { ...matrixInput, ask })
          if (d.decision === 'run' || (ask === 'never' && d.decision !== 'blocked')) ran.push(`${ask}: ${line} → ${d.decision} (${d.rule})`)
        }
      }
    }
    expect(ran).toEqual([])
  })
})

describe('ordinary lines keep running', () => {
  it.each(mustStillRun)('%s runs under on_risk without asking', (line) => {
    const d = decide(line, {})
    expect({ decision: d.decision, rule: d.rule, flags: d.riskFlags }, d.reason).toEqual({ decision: 'run', rule: null, flags: [] })
    expect(decide(line, { denylist: ['git reset', 'npm publish'] }).decision).toBe('run')
  })
})
