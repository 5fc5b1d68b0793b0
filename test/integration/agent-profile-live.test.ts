import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { makeTempDir } from '../support/temp-home'

// The operator changes an agent's profile while its session is open: the session's next call runs
// under the new profile (tools, ask mode, limits), not the one the session started with.

describe('a changed profile reaches open sessions at their next call', () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  beforeAll(async () => {
    dir = makeTempDir('airlock-profile-live-')
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
  })
  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  const write = (sessionId: string, path: string, content = 'x') => host.agents.sessions.execute({ sessionId, tool: 'write_file', input: { path, content } })

  it('a removed capability is refused; ask tightened to always asks; a lowered disk quota holds', async () => {
    host.agents.service.create('shifty', { profile: { capabilities: ['files', 'sqlite'], ask: 'never' } })
    const { sessionId } = host.agents.sessions.start('shifty', 'test')
    expect((await write(sessionId, 'a.txt')).status).toBe('success')

    host.agents.service.update('shifty', { patch: { ask: 'always', approvalTimeoutSeconds: 1 } })
    const asked = await write(sessionId, 'b.txt')
    expect(asked).toMatchObject({ status: 'blocked', meta: { approval: { status: 'denied' } } })
    expect(asked.error!.message).toMatch(/expired/)

    host.agents.service.update('shifty', { patch: { ask: 'never', limits: { diskMb: 1 } } })
    expect((await write(sessionId, 'big.txt', 'y'.repeat(3 * 1024 * 1024))).status).not.toBe('success')

    host.agents.service.update('shifty', { patch: { capabilities: ['sqlite'] } })
    expect(host.agents.sessions.agentOf(sessionId)!.tools.has('write_file')).toBe(false)
    expect(await write(sessionId, 'c.txt')).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'capability.not_enabled' } } })
    await host.agents.sessions.end(sessionId)
  })
})
