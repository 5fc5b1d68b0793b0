import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentGateway } from '../../src/main/gateway'
import { createHost, startHostGateway, type Host } from '../../src/main/host'
import { callTool, connectAgent } from '../support/mcp-gateway-client'
import { makeTempDir } from '../support/temp-home'

// A call that asks the operator, through the gateway as the shells start it (the host's approval
// queue reports the wait): the MCP client hears progress while it waits, then gets the real result
// or the operator's reason.

describe('approval waits through the gateway', () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let gateway: AgentGateway
  let token: string

  beforeAll(async () => {
    dir = makeTempDir('airlock-gateway-approvals-')
    host = createHost({ home: dir.path, logError: () => undefined })
    await host.recovered
    token = host.agents.service.create('asker', { profile: { capabilities: ['files'], ask: 'always' } }).token
    gateway = await startHostGateway(host, { port: 0, logError: () => undefined })
  })
  afterAll(async () => {
    await gateway?.close()
    await host?.dispose()
    dir?.remove()
  })

  const pending = () => host.approvals.list({ status: 'pending' })

  it('the call waits with progress; approved, it returns the real result', async () => {
    const agent = await connectAgent(gateway.url, token)
    try {
      const progress: string[] = []
      const call = callTool(
        agent.client,
        'write_file',
        { path: 'asked.txt', content: 'approved content' },
        { onprogress: (p) => progress.push(p.message ?? '') }
      )
      await expect.poll(() => pending().length, { timeout: 10_000 }).toBe(1)
      const item = pending()[0]!
      await expect.poll(() => progress.length, { timeout: 5000 }).toBeGreaterThan(0)
      expect(progress[0]).toMatch(new RegExp(`^waiting for the operator's approval \\(item ${item.id}`))
      host.approvals.decide({ id: item.id, decision: 'approve' })
      const result = await call
      expect(result.structuredContent).toMatchObject({ ok: true, status: 'success', meta: { approval: expect.objectContaining({ approvalId: item.id }) } })
      expect(readFileSync(join(dir.path, 'workspaces', 'asker', 'asked.txt'), 'utf8')).toBe('approved content')
      expect(progress.at(-1)).toMatch(new RegExp(`^approval ${item.id}: approved`))
    } finally {
      await agent.close()
    }
  })

  it("denied, the agent gets the operator's reason as an error result", async () => {
    const agent = await connectAgent(gateway.url, token)
    try {
      const call = callTool(agent.client, 'write_file', { path: 'denied.txt', content: 'no' })
      await expect.poll(() => pending().length, { timeout: 10_000 }).toBe(1)
      host.approvals.decide({ id: pending()[0]!.id, decision: 'deny', reason: 'not in this sprint' })
      const result = await call
      expect(result.isError).toBe(true)
      expect(JSON.stringify(result.structuredContent)).toMatch(/not in this sprint/)
      expect((result.content as { text: string }[])[0]!.text).toMatch(/not in this sprint/)
    } finally {
      await agent.close()
    }
  })
})
