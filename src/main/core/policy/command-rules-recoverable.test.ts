import { describe, expect, it } from 'vitest'
import { command, decide, line } from './command-rules-test-support'

// Issue 28: a deletion inside the workspace whose previous content the checkpoint keeps is
// recoverable and does not ask under on_risk (flag `recoverable_deletion`); what the checkpoint
// cannot vouch for still asks.

/** The checkpoint keeps everything but `big.bin` (over the size cap) and whatever it never saw. */
const kept = new Set(['build', 'src', 'src/app.ts', '', '.git'])
const recoverable = (segments: readonly string[]) => kept.has(segments.join('/'))

describe('recoverable deletions', () => {
  it('rm -rf of a kept folder runs without asking, flagged recoverable_deletion, with the path kept for the run-time check', () => {
    const decided = decide(line(command(['rm', '-rf', 'build'])), { recoverable })
    expect(decided).toMatchObject({ decision: 'run', riskFlags: ['recoverable_deletion'], recoverable: [['build']] })
    expect(decided.reason).toMatch(/can be undone/)
  })

  it('still asks for what the checkpoint cannot restore: not kept, unknown at run time, outside the workspace, a line that makes links', () => {
    expect(decide(line(command(['rm', 'big.bin'])), { recoverable })).toMatchObject({ decision: 'ask', rule: 'risk.deletion' })
    expect(decide(line(command(['rm', '-rf', '$DIR'])), { recoverable })).toMatchObject({ decision: 'ask', riskFlags: ['deletion'] })
    expect(decide(line(command(['rm', '-rf', '/etc/x'])), { recoverable })).toMatchObject({ decision: 'ask', riskFlags: ['deletion'] })
    expect(decide(line(command(['ln', '-s', '/home', 'build']), command(['rm', '-rf', 'build/'])), { recoverable })).toMatchObject({
      decision: 'ask',
      rule: 'risk.deletion'
    })
    // Without checkpoints nothing is recoverable.
    expect(decide(line(command(['rm', '-rf', 'build'])))).toMatchObject({ decision: 'ask', rule: 'risk.deletion' })
  })

  it('a glob is vouched for by the folder it matches in', () => {
    expect(decide(line(command(['rm', '-rf', 'src/*.ts'])), { recoverable })).toMatchObject({ decision: 'run', recoverable: [['src']] })
    expect(decide(line(command(['rm', '-rf', 'other/*'])), { recoverable })).toMatchObject({ decision: 'ask' })
  })

  it('git commands that discard work are recoverable when the whole workspace is kept; a forced push never is', () => {
    expect(decide(line(command(['git', 'reset', '--hard'])), { recoverable })).toMatchObject({
      decision: 'run',
      riskFlags: ['recoverable_deletion'],
      recoverable: [[]]
    })
    expect(decide(line(command(['git', 'checkout', '--', '.'])), { recoverable })).toMatchObject({ decision: 'run' })
    expect(decide(line(command(['git', 'push', '--force'])), { recoverable })).toMatchObject({ decision: 'ask', rule: 'risk.deletion' })
    expect(decide(line(command(['git', 'reset', '--hard'])), { recoverable: () => false })).toMatchObject({ decision: 'ask', rule: 'risk.deletion' })
  })

  it('does not vouch for what could reach past the checkpoint (an attack review of this rule)', () => {
    const ask = { decision: 'ask', rule: 'risk.deletion' }
    // A word that climbs through a link: `lnk/../victim` is `victim` on paper, elsewhere at run time.
    expect(decide(line(command(['rm', '-rf', 'build/../src'])), { recoverable })).toMatchObject(ask)
    // A folder only known at run time.
    expect(decide(line(command(['cd', '$X']), command(['rm', '-rf', 'build'])), { recoverable })).toMatchObject({ decision: 'ask' })
    // A glob's expansion goes through links: the checkpoint is asked with `glob` and says no when one lies below.
    const noLinks = (segments: readonly string[], options?: { glob?: boolean }) => !options?.glob && recoverable(segments)
    expect(decide(line(command(['rm', '-rf', 'src/*'])), { recoverable: noLinks })).toMatchObject(ask)
    // Deleters that follow links or read from elsewhere are judged as before.
    expect(decide(line(command(['shred', '-u', 'build'])), { recoverable })).toMatchObject(ask)
    // Anything else on the line could put a link where the deletion goes.
    expect(decide(line(command(['mv', 'src', 'build']), command(['rm', '-rf', 'build'])), { recoverable })).toMatchObject({ decision: 'ask' })
    expect(decide(line(command(['git', 'reset', '--hard']), command(['rm', '-rf', 'build'])), { recoverable })).toMatchObject(ask)
    // Git sent elsewhere.
    expect(decide(line(command(['git', '-C', '/srv/repo', 'reset', '--hard'])), { recoverable })).toMatchObject(ask)
    expect(
      decide(line(command(['git', 'reset', '--hard'], { assignments: [{ name: 'GIT_WORK_TREE', value: { value: '/srv', static: true } }] })), { recoverable })
    ).toMatchObject(ask)
    // Harmless company keeps it recoverable.
    expect(decide(line(command(['ls']), command(['rm', '-rf', 'build']), command(['echo', 'done'])), { recoverable })).toMatchObject({
      decision: 'run',
      riskFlags: ['recoverable_deletion']
    })
  })
})
