import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { airlockPaths } from '../../src/main/host'
import { openStore } from '../../src/main/store'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// `airlock net rules …` and `airlock net hosts …` (SPEC §8.1) through the built CLI, on a home's
// database: what a running console's egress proxy reads on every connection.

const cliTimeoutMs = 120_000
let dir: ReturnType<typeof makeTempDir>
const net = (...args: string[]) => runAirlock(['net', ...args, '--home', dir.path])

beforeAll(() => {
  dir = makeTempDir()
  expect(runAirlock(['agent', 'create', 'coder', '--home', dir.path]).code).toBe(0)
  const store = openStore(airlockPaths(dir.path).database)
  store.roles.save({ id: 'builders', name: 'Builders', defaults: {}, at: new Date().toISOString() })
  store.close()
}, cliTimeoutMs)
afterAll(() => dir.remove())

describe('airlock net', () => {
  it(
    'adds, lists and removes rules for an agent and for everyone',
    () => {
      const added = net('rules', 'add', '--agent', 'coder', 'allow', 'files.pythonhosted.org:443', '--json')
      expect(added.code, added.stderr).toBe(0)
      const rule = JSON.parse(added.stdout) as { id: string }
      expect(JSON.parse(added.stdout)).toMatchObject({ agentId: 'coder', decision: 'allow', host: 'files.pythonhosted.org', port: 443 })
      expect(net('rules', 'add', '--global', 'deny', '*.internal.example').stdout).toMatch(/^Added deny \*\.internal\.example for every agent$/m)
      expect(net('rules', 'add', '--global', 'ask', '[::1]:8080').code).toBe(0)
      const listed = JSON.parse(net('rules', 'list', '--json').stdout) as { host: string }[]
      expect(listed.map((entry) => entry.host)).toEqual(['files.pythonhosted.org', '*.internal.example', '[::1]'])
      expect(net('rules', 'list').stdout).toContain(`${rule.id}  allow files.pythonhosted.org:443 for agent coder`)
      expect(net('rules', 'rm', rule.id).code).toBe(0)
      expect(net('rules', 'rm', rule.id)).toMatchObject({ code: 1, stderr: expect.stringMatching(/no network rule/) })
    },
    cliTimeoutMs
  )

  it.each([
    [['rules', 'add', 'allow', 'pypi.org'], /exactly one of --agent A, --role R or --global/],
    [['rules', 'add', '--global', '--agent', 'coder', 'allow', 'pypi.org'], /exactly one of --agent A, --role R or --global/],
    [['rules', 'add', '--role', 'builders', '--agent', 'coder', 'allow', 'pypi.org'], /exactly one of --agent A, --role R or --global/],
    [['rules', 'add', '--role', 'Not A Slug', 'allow', 'pypi.org'], /roleId: must be a slug/],
    [['rules', 'add', '--global', 'permit', 'pypi.org'], /decision/],
    [['rules', 'add', '--global', 'allow', 'PyPI org'], /not host, \*\.suffix or host:port|host name/],
    [['rules', 'add', '--global', 'allow', 'pypi.org:99999'], /out of range/],
    [['rules', 'add', '--global', 'allow', 'a.*.org'], /host name/],
    [['hosts', 'add', 'pkgs.test', 'not-an-ip'], /IPv4 or IPv6/],
    [['hosts', 'add', '--global', 'pkgs.test', '127.0.0.1'], /are for net rules add/],
    [['routes', 'list'], /net takes rules or hosts/]
  ])(
    'refuses %j as usage (exit 2)',
    (args, message) => {
      const result = net(...args)
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(message)
    },
    cliTimeoutMs
  )

  it(
    'an unknown agent or role is not found (exit 1)',
    () => {
      expect(net('rules', 'add', '--agent', 'ghost', 'allow', 'pypi.org')).toMatchObject({ code: 1, stderr: expect.stringMatching(/no agent ghost/) })
      expect(net('rules', 'add', '--role', 'ghosts', 'allow', 'pypi.org')).toMatchObject({ code: 1, stderr: expect.stringMatching(/no role ghosts/) })
    },
    cliTimeoutMs
  )

  it(
    'adds a rule for every agent of a role',
    () => {
      const added = net('rules', 'add', '--role', 'builders', 'allow', 'registry.npmjs.org:443', '--json')
      expect(added.code, added.stderr).toBe(0)
      const rule = JSON.parse(added.stdout) as { id: string }
      expect(rule).toMatchObject({ agentId: null, roleId: 'builders', decision: 'allow', host: 'registry.npmjs.org', port: 443 })
      expect(net('rules', 'list').stdout).toContain(`${rule.id}  allow registry.npmjs.org:443 for every agent of role builders`)
      expect(net('rules', 'rm', rule.id).code).toBe(0)
    },
    cliTimeoutMs
  )

  it(
    'pins names, replaces a pin, lists and unpins them',
    () => {
      expect(net('hosts', 'add', 'PKGS.test', '127.0.0.1').stdout).toMatch(/Pinned pkgs\.test to 127\.0\.0\.1/)
      expect(net('hosts', 'add', 'pkgs.test', '10.1.2.3').code).toBe(0)
      expect(JSON.parse(net('hosts', 'list', '--json').stdout)).toEqual([{ name: 'pkgs.test', address: '10.1.2.3' }])
      expect(net('hosts', 'rm', 'pkgs.test').code).toBe(0)
      expect(net('hosts', 'rm', 'pkgs.test').code).toBe(1)
      expect(net('hosts', 'list').stdout).toMatch(/No pinned names/)
    },
    cliTimeoutMs
  )
})
