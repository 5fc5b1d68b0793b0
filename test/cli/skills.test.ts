import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../../src/main/store'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// `airlock skills` through the built CLI: the operator lists an agent's skill revisions and
// approves or rejects one that waits, on the home's database (what run_skill reads).

const cliTimeoutMs = 120_000
let dir: ReturnType<typeof makeTempDir>
const skills = (...args: string[]) => runAirlock(['skills', ...args, '--home', dir.path])
const manifest = (entry: string) => ({
  description: 'prints its args',
  entry,
  language: 'python' as const,
  files: [
    { path: entry, bytes: 12, sha256: 'a'.repeat(64) },
    { path: 'SKILL.md', bytes: 40, sha256: 'b'.repeat(64) }
  ]
})

beforeAll(() => {
  dir = makeTempDir()
  expect(runAirlock(['agent', 'create', 'coder', '--home', dir.path]).code).toBe(0)
  const store = openStore(join(dir.path, 'airlock.db'))
  try {
    store.skills.propose('coder', 'greet', { contentHash: `sha256:${'1'.repeat(64)}`, manifest: manifest('main.py') })
    store.skills.propose('coder', 'greet', { contentHash: `sha256:${'2'.repeat(64)}`, manifest: manifest('main.py') })
  } finally {
    store.close()
  }
}, cliTimeoutMs)
afterAll(() => dir.remove())

describe('airlock skills', () => {
  it(
    'lists revisions, approves one, rejects another with a reason, and refuses deciding twice',
    () => {
      const listed = skills('list', '--agent', 'coder')
      expect(listed.code).toBe(0)
      expect(listed.stdout).toContain('coder/greet  approved: -')
      expect(listed.stdout).toMatch(/revision 2 {2}pending_approval/)

      const approved = skills('approve', 'coder/greet', '1')
      expect(approved.code).toBe(0)
      expect(approved.stdout).toContain('revision 1 is approved')
      expect(skills('reject', 'coder/greet', '2').code).toBe(2)
      const rejected = skills('reject', 'coder/greet', '2', '--reason', 'fetches from the network')
      expect(rejected.code).toBe(0)
      const json = JSON.parse(skills('list', '--agent', 'coder', '--json').stdout)
      expect(json).toMatchObject([
        {
          skillId: 'coder/greet',
          approvedRevision: 1,
          revisions: [
            { revision: 2, state: 'rejected', reason: 'fetches from the network' },
            { revision: 1, state: 'approved' }
          ]
        }
      ])

      const again = skills('approve', 'coder/greet', '2')
      expect(again.code).toBe(1)
      expect(again.stderr).toMatch(/already rejected/)
      expect(skills('approve', 'coder/nothing', '1').code).toBe(1)
      expect(skills('approve', 'coder', '1').code).toBe(2)
      expect(skills('approve', 'coder/greet', 'x').code).toBe(2)
    },
    cliTimeoutMs
  )
})
