import { beforeAll, describe, expect, it } from 'vitest'
import type { CommandPolicyInput } from '../../src/main/core/policy/command-analysis'
import { decideCommandLine } from '../../src/main/core/policy/command-rules'
import { loadCommandAnalyzer, type CommandAnalyzer } from '../../src/main/core/policy/shell'
import { asking, denied, ordinary, policyCorpus, type PolicyCase } from './policy-corpus'

// Every corpus line through the real analyzer (tree-sitter-bash) and the real rules: the decision,
// the deciding rule, and the risk flags when the case names them.

const defaultProfile: CommandPolicyInput = { ask: 'on_risk', network: 'none', denylist: [], allowlist: [] }
let analyzer: CommandAnalyzer

beforeAll(async () => {
  analyzer = await loadCommandAnalyzer()
})

const decide = (c: PolicyCase) => decideCommandLine(analyzer.analyze(c.line), { ...defaultProfile, ...c.input })
const label = (c: PolicyCase) => `${JSON.stringify(c.line).slice(0, 90)}${c.input ? ` with ${JSON.stringify(c.input)}` : ''}`

describe('command policy corpus', () => {
  it('covers what issue 10 asks for', () => {
    expect(policyCorpus.length).toBeGreaterThanOrEqual(120)
    expect(ordinary.filter((c) => !c.input).length).toBeGreaterThanOrEqual(40)
    const rules = new Set(policyCorpus.map((c) => c.rule))
    for (const family of [
      'rm_root',
      'privilege',
      'mkfs',
      'raw_device',
      'fork_bomb',
      'power',
      'recursive_permissions_root',
      'download_execute',
      'kill_all',
      'credential_read'
    ]) {
      expect(rules, family).toContain(`deny.${family}`)
    }
    for (const rule of ['denylist.custom', 'allowlist.not_listed', 'ask.always', 'risk.network', 'risk.long_runtime']) expect(rules).toContain(rule)
  })

  it.each(policyCorpus.map((c) => [label(c), c] as const))('%s', (_label, c) => {
    const decision = decide(c)
    expect({ decision: decision.decision, rule: decision.rule }, `${decision.reason} | commands ${JSON.stringify(decision.commands)}`).toEqual({
      decision: c.expect,
      rule: c.rule
    })
    if (c.flags) expect(decision.riskFlags).toEqual(c.flags)
  })

  it('lets ordinary commands run and no risky one run (the shares issue 10 reports)', () => {
    const ordinaryLines = ordinary.filter((c) => !c.input)
    const riskyLines = [...denied, ...asking].filter((c) => !c.input)
    const asked = ordinaryLines.filter((c) => decide(c).decision !== 'run')
    const ran = riskyLines.filter((c) => decide(c).decision === 'run')
    const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`
    console.log(
      `policy corpus: ${policyCorpus.length} lines; ordinary that asked ${asked.length}/${ordinaryLines.length} = ${share(asked.length, ordinaryLines.length)} (goal 0 %); ` +
        `risky that ran ${ran.length}/${riskyLines.length} = ${share(ran.length, riskyLines.length)} (must be 0 %)`
    )
    expect(ran.map((c) => c.line)).toEqual([])
  })
})
