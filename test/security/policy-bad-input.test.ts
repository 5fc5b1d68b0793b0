import { beforeAll, describe, expect, it } from 'vitest'
import type { CommandPolicyInput } from '../../src/main/core/policy/command-analysis'
import { decideCommandLine } from '../../src/main/core/policy/command-rules'
import { loadCommandAnalyzer, type CommandAnalyzer } from '../../src/main/core/policy/shell'
import { badInputs } from './policy-corpus'

// Hostile command lines (issue 10, "Bad input"): each gets a decision that does not run it (ask, or
// blocked), never an exception or a hang. The time bound (50 ms) is reported by
// bench/policy.bench.ts, not asserted here (tests do not assert wall-clock times).

const profiles: CommandPolicyInput[] = [
  { ask: 'on_risk', network: 'none', denylist: [], allowlist: [] },
  { ask: 'always', network: 'full', denylist: ['git push'], allowlist: [] },
  { ask: 'never', network: 'none', denylist: [], allowlist: ['ls'] }
]

let analyzer: CommandAnalyzer

beforeAll(async () => {
  analyzer = await loadCommandAnalyzer()
})

describe('command policy on hostile input', () => {
  it.each(badInputs.map((b) => [b.name, b.line] as const))('%s: asks or blocks, never runs or throws', (_name, line) => {
    for (const profile of profiles) {
      const decision = decideCommandLine(analyzer.analyze(line), profile)
      expect(['ask', 'blocked'], `${profile.ask}: ${decision.rule} ${decision.reason}`).toContain(decision.decision)
      expect(decision.rule).toMatch(/^(command|deny|denylist|allowlist|risk|ask)\./)
      if (profile.ask === 'never') expect(decision.decision).toBe('blocked')
    }
  })

  it('blocks a NUL byte in every ask mode', () => {
    for (const profile of profiles)
      expect(decideCommandLine(analyzer.analyze('ls\0'), profile)).toMatchObject({ decision: 'blocked', rule: 'command.nul_byte' })
  })

  it('keeps deciding normally after hostile input', () => {
    for (const b of badInputs) analyzer.analyze(b.line)
    expect(decideCommandLine(analyzer.analyze('git status'), profiles[0]!)).toMatchObject({ decision: 'run', rule: null })
    expect(decideCommandLine(analyzer.analyze('rm -rf /'), profiles[0]!)).toMatchObject({ decision: 'blocked', rule: 'deny.rm_root' })
  })
})
