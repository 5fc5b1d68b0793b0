import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AgentService } from '../../src/main/console/agent-service'
import { AgentWorkspaces } from '../../src/main/console/agent-workspaces'
import { RoleService } from '../../src/main/console/role-service'
import { openStore } from '../../src/main/store'
import { runAirlock } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

let dir: ReturnType<typeof makeTempDir>
let home: string
beforeEach(() => {
  dir = makeTempDir('airlock-cli-agents-', { outsideTmp: true })
  home = join(dir.path, 'home')
})
afterEach(() => dir.remove())

const lines = (text: string) => text.split('\n').filter((line) => line.length > 0)
const airlock = (...args: string[]) => runAirlock(['agent', ...args, '--home', home])

/** Reads the home's agents the way the console does: straight from its database. */
function withAgents<T>(use: (agents: AgentService, roles: RoleService) => T): T {
  mkdirSync(home, { recursive: true })
  const store = openStore(join(home, 'airlock.db'))
  try {
    return use(
      new AgentService({ agents: store.agents, roles: store.roles, workspaces: new AgentWorkspaces(join(home, 'workspaces')) }),
      new RoleService({ roles: store.roles, agents: store.agents })
    )
  } finally {
    store.close()
  }
}

// Each case runs the built CLI (a few seconds each on a loaded two-core machine).
describe('airlock agent create', { timeout: 120_000 }, () => {
  it('prints the token once with how to use it; the token authenticates the agent and is stored nowhere', () => {
    const result = airlock('create', 'coder', '--name', 'The coder')
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    const token = /^Token \(shown once, keep it secret\): (alk_[A-Za-z0-9_-]{43})$/m.exec(result.stdout)?.[1]
    expect(token).toBeDefined()
    expect(result.stdout).toMatch(/Authorization: Bearer <token>/)
    expect(readdirSync(join(home, 'workspaces', 'coder')).sort()).toEqual(['integrations', 'scratch', 'skills'])
    expect(withAgents((agents) => agents.authenticate(token)?.name)).toBe('The coder')
    const listed = airlock('list', '--json')
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 'coder', name: 'The coder', enabled: true, role: null })])
    expect(listed.stdout).not.toMatch(/alk_|hash/i)
    for (const file of readdirSync(home).filter((f) => f.startsWith('airlock.db')))
      expect(readFileSync(join(home, file)).includes(Buffer.from(token!))).toBe(false)
  })

  it('--json prints an object with id and token', () => {
    const result = airlock('create', 'coder', '--json')
    expect(result.code).toBe(0)
    const printed = JSON.parse(result.stdout)
    expect(printed).toMatchObject({ id: 'coder', token: expect.stringMatching(/^alk_/), workspace: join(home, 'workspaces', 'coder') })
    expect(withAgents((agents) => agents.authenticate(printed.token)?.id)).toBe('coder')
  })

  it('reads --profile and --role; the agent inherits the role', () => {
    withAgents((_, roles) => roles.save({ id: 'ci', defaults: { network: 'proxy', limits: { memoryMb: 512 } } }))
    writeFileSync(join(dir.path, 'profile.json'), JSON.stringify({ ask: 'always', limits: { pids: 64 } }))
    const result = airlock('create', 'bot', '--role', 'ci', '--profile', join(dir.path, 'profile.json'))
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Created agent bot \(role ci\)/)
    expect(withAgents((agents) => agents.effectiveProfile('bot'))).toMatchObject({
      role: 'ci',
      ask: 'always',
      network: 'proxy',
      limits: { pids: 64, memoryMb: 512 }
    })
  })

  it('an id that exists: exit 1, one line, the first agent untouched', () => {
    const first = JSON.parse(airlock('create', 'coder', '--json').stdout)
    const again = airlock('create', 'coder')
    expect(again.code).toBe(1)
    expect(lines(again.stderr)).toEqual(['airlock: An agent coder already exists.'])
    expect(again.stdout).toBe('')
    expect(withAgents((agents) => agents.authenticate(first.token)?.id)).toBe('coder')
  })

  it('an unknown role or a profile beyond the role: exit 1 naming the field, nothing created', () => {
    withAgents((_, roles) => roles.save({ id: 'ci', defaults: {} }))
    writeFileSync(join(dir.path, 'wide.json'), JSON.stringify({ network: 'full' }))
    const unknownRole = airlock('create', 'bot', '--role', 'nope')
    expect([unknownRole.code, lines(unknownRole.stderr)]).toEqual([1, ['airlock: There is no role nope.']])
    const beyond = airlock('create', 'bot', '--role', 'ci', '--profile', join(dir.path, 'wide.json'))
    expect(beyond.code).toBe(1)
    expect(lines(beyond.stderr)).toEqual([expect.stringMatching(/^airlock: The profile exceeds its role: network: "full" is wider than "none" \(role ci\)$/)])
    expect(withAgents((agents) => agents.list())).toEqual([])
  })

  const badUsage: [string, (d: string) => string[], RegExp][] = [
    ['a bad id', () => ['create', 'Coder'], /^airlock: agent id "Coder": must be a slug/],
    ['the reserved id', () => ['create', 'background'], /^airlock: agent id "background": "background" is reserved/],
    ['a missing profile file', (d) => ['create', 'x', '--profile', join(d, 'none.json')], /^airlock: cannot read the profile .*none\.json: ENOENT$/],
    ['a profile file that is not JSON', (d) => ['create', 'x', '--profile', join(d, 'broken.json')], /^airlock: the profile .*broken\.json is not JSON: /],
    ['a profile with a bad field', (d) => ['create', 'x', '--profile', join(d, 'bad.json')], /^airlock: the profile .*bad\.json is invalid: limits\.pids: /],
    [
      'a profile with an unknown key',
      (d) => ['create', 'x', '--profile', join(d, 'typo.json')],
      /^airlock: the profile .*typo\.json is invalid: .*Unrecognized key.*netwrok/
    ],
    ['an empty name', () => ['create', 'x', '--name', ' '], /^airlock: name " ": must not be empty$/],
    ['no action', () => [], /^airlock: agent takes create, update, list, rm, disable, enable$/],
    ['an unknown action', () => ['launch'], /^airlock: agent takes .*not "launch"$/],
    ['create without an id', () => ['create'], /^airlock: agent create needs an agent id$/],
    ['list with an id', () => ['list', 'x'], /^airlock: agent list takes no id$/],
    ['a stray argument', () => ['rm', 'x', 'y'], /^airlock: unexpected argument y$/],
    ['--role outside create', () => ['list', '--role', 'ci'], /^airlock: --role is only for agent create and agent update$/],
    ['update without a change', () => ['update', 'x'], /^airlock: agent update needs --profile, --role or --name$/],
    ['an unknown option', () => ['create', 'x', '--token', 't'], /^airlock: unknown option --token$/]
  ]
  for (const [what, args, message] of badUsage) {
    it(`refuses ${what}: exit 2, one line, no home made`, () => {
      writeFileSync(join(dir.path, 'broken.json'), '{"network": ')
      writeFileSync(join(dir.path, 'bad.json'), JSON.stringify({ limits: { pids: 0 } }))
      writeFileSync(join(dir.path, 'typo.json'), JSON.stringify({ netwrok: 'none' }))
      const result = airlock(...args(dir.path))
      expect(result.code).toBe(2)
      expect(lines(result.stderr)).toEqual([expect.stringMatching(message)])
      expect(result.stdout).toBe('')
      expect(existsSync(join(home, 'workspaces', 'x'))).toBe(false)
    })
  }
})

describe('airlock agent list, disable, enable, rm', { timeout: 120_000 }, () => {
  it('lists nothing on a new home without creating it', () => {
    expect(airlock('list')).toMatchObject({ code: 0, stdout: expect.stringMatching(/^No agents yet/) })
    expect(JSON.parse(airlock('list', '--json').stdout)).toEqual([])
    expect(existsSync(home)).toBe(false)
  })

  it('disable stops the token, enable restores it, and the list shows the state', () => {
    const { token } = JSON.parse(airlock('create', 'coder', '--json').stdout)
    expect(airlock('disable', 'coder')).toMatchObject({ code: 0, stdout: 'Agent coder is disabled.\n' })
    expect(withAgents((agents) => agents.authenticate(token))).toBeUndefined()
    expect(lines(airlock('list').stdout)).toEqual(['ID     STATE     ROLE  NAME', 'coder  disabled  -     coder'])
    expect(airlock('enable', 'coder').code).toBe(0)
    expect(withAgents((agents) => agents.authenticate(token)?.id)).toBe('coder')
  })

  it('update replaces the profile from a file (the way to mark an MCP server unsafe without the desktop app); a bad one changes nothing', () => {
    airlock('create', 'coder')
    const file = join(home, '..', 'unsafe-profile.json')
    writeFileSync(file, JSON.stringify({ capabilities: ['mcp'], mcpServers: [{ name: 'tool', command: ['/usr/bin/true'], unsafe: true }] }))
    expect(airlock('update', 'coder', '--profile', file)).toMatchObject({
      code: 0,
      stdout: "Updated agent coder; its sessions' next calls run under the new profile.\n"
    })
    const listed = JSON.parse(airlock('list', '--json').stdout) as { profile: { mcpServers: unknown[] } }[]
    expect(listed[0]!.profile.mcpServers).toEqual([{ name: 'tool', command: ['/usr/bin/true'], unsafe: true }])
    writeFileSync(file, JSON.stringify({ limits: { pids: 0 } }))
    expect(airlock('update', 'coder', '--profile', file).code).toBe(2)
    expect((JSON.parse(airlock('list', '--json').stdout) as { profile: { mcpServers: unknown[] } }[])[0]!.profile.mcpServers).toHaveLength(1)
  })

  it("rm moves its MCP servers' state folder aside with the workspace", () => {
    airlock('create', 'coder')
    mkdirSync(join(home, 'mcp-state', 'coder', 'tool'), { recursive: true })
    writeFileSync(join(home, 'mcp-state', 'coder', 'tool', 'cache.json'), '{}')
    const movedTo = /workspace was moved to (.*)\.$/.exec(airlock('rm', 'coder').stdout.trim())?.[1]
    expect(existsSync(join(home, 'mcp-state', 'coder'))).toBe(false)
    expect(readFileSync(join(`${movedTo}.mcp-state`, 'tool', 'cache.json'), 'utf8')).toBe('{}')
  })

  it('rm removes the agent and moves its workspace aside; a new agent of that id starts empty', () => {
    const { token } = JSON.parse(airlock('create', 'coder', '--json').stdout)
    writeFileSync(join(home, 'workspaces', 'coder', 'scratch', 'work.txt'), 'keep me')
    const removed = airlock('rm', 'coder')
    expect(removed.code).toBe(0)
    const movedTo = /workspace was moved to (.*)\.$/.exec(removed.stdout.trim())?.[1]
    expect(movedTo).toMatch(/\/workspaces\/\.removed\/coder-\d{4}-\d\d-\d\dT/)
    expect(readFileSync(join(movedTo!, 'scratch', 'work.txt'), 'utf8')).toBe('keep me')
    expect(withAgents((agents) => agents.authenticate(token))).toBeUndefined()
    expect(JSON.parse(airlock('list', '--json').stdout)).toEqual([])
    expect(airlock('create', 'coder').code).toBe(0)
    expect(readdirSync(join(home, 'workspaces', 'coder', 'scratch'))).toEqual([])
  })

  for (const action of ['rm', 'disable', 'enable']) {
    it(`${action} of an unknown agent: exit 1, one line`, () => {
      const onMissingHome = airlock(action, 'ghost')
      expect([onMissingHome.code, lines(onMissingHome.stderr)]).toEqual([1, [expect.stringMatching(/^airlock: There is no agent ghost/)]])
      expect(existsSync(home)).toBe(false)
      airlock('create', 'other')
      const result = airlock(action, 'ghost')
      expect([result.code, lines(result.stderr)]).toEqual([1, ['airlock: There is no agent ghost.']])
    })
  }
})
