import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { approvalListKeys } from '@shared/approvals'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { callTool, connectAgent, initializeBody, mcpHeaders, rawRequest, startServeWithGateway, type GatewayToolResult } from '../support/mcp-gateway-client'
import { runAirlockAsync } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

// Issue 11's must-show, from outside: a running `airlock serve` process, real SDK clients over
// Streamable HTTP as agents, and the operator deciding with the `airlock approvals` CLI (another
// process, through the shared database). Commands run in real bubblewrap sandboxes.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

type Listed = Record<(typeof approvalListKeys)[number], unknown>

describe.skipIf(skip !== undefined)(
  `agents through a running airlock serve, the operator through the CLI${skip ? ` (skipped: ${skip})` : ''}`,
  { timeout: 180_000 },
  () => {
    let dir: ReturnType<typeof makeTempDir>
    let home: string
    let serve: Awaited<ReturnType<typeof startServeWithGateway>>
    let url: string
    const tokens: Record<string, string> = {}
    const cli = (...args: string[]) => runAirlockAsync([...args, '--home', home])

    async function createAgent(id: string, profile: Record<string, unknown>): Promise<void> {
      const file = join(dir.path, `${id}.json`)
      writeFileSync(file, JSON.stringify(profile))
      const created = await cli('agent', 'create', id, '--json', '--profile', file)
      expect(created.code, created.stderr).toBe(0)
      tokens[id] = (JSON.parse(created.stdout) as { token: string }).token
    }

    async function start(): Promise<void> {
      serve = await startServeWithGateway(['--port', '0', '--gateway-port', '0', '--home', home])
      url = serve.gatewayLine.replace(/^Agent gateway: /, '')
    }

    /** The pending items, as `airlock approvals list --json` prints them; waits until `count` are there. */
    async function pending(count: number): Promise<Listed[]> {
      let items: Listed[] = []
      await expect
        .poll(
          async () => {
            const listed = await cli('approvals', 'list', '--json')
            items = JSON.parse(listed.stdout) as Listed[]
            return items.length
          },
          { timeout: 30_000, interval: 300 }
        )
        .toBe(count)
      return items
    }

    beforeAll(async () => {
      dir = makeTempDir('airlock-gateway-e2e-', { outsideTmp: true })
      home = join(dir.path, 'home')
      await createAgent('coder', { capabilities: ['files', 'shell'] })
      await createAgent('other', { capabilities: ['files'], ask: 'never' })
      await createAgent('quick', { capabilities: ['shell'], approvalTimeoutSeconds: 2 })
      await createAgent('tester', { capabilities: ['shell'], ask: 'always' })
      await start()
      expect(serve.gatewayLine).toMatch(/^Agent gateway: http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    }, 120_000)
    afterAll(async () => {
      await serve?.stop()
      dir?.remove()
    })

    it('lists the agent’s tools; writes and reads a file; another agent cannot reach that workspace', async () => {
      const coder = await connectAgent(url, tokens.coder!)
      const other = await connectAgent(url, tokens.other!)
      try {
        const names = (await coder.client.listTools()).tools.map((tool) => tool.name)
        expect(names).toEqual(expect.arrayContaining(['write_file', 'read_file', 'edit_file', 'list_directory', 'search_files', 'run_command']))
        expect(names).not.toContain('run_code')
        const written = await callTool(coder.client, 'write_file', { path: 'notes/plan.txt', content: 'ship it' })
        expect(written.structuredContent).toMatchObject({ ok: true, status: 'success', data: { path: 'notes/plan.txt', bytes: 7 } })
        const read = await callTool(coder.client, 'read_file', { path: 'notes/plan.txt' })
        expect(read.isError).toBeFalsy()
        expect(read.structuredContent.data).toMatchObject({ content: 'ship it' })
        expect(read.content).toHaveLength(1)

        for (const path of ['../coder/notes/plan.txt', join(home, 'workspaces', 'coder', 'notes', 'plan.txt')]) {
          const stolen = await callTool(other.client, 'read_file', { path })
          expect(stolen.isError).toBe(true)
          expect(JSON.stringify(stolen)).not.toContain('ship it')
        }
      } finally {
        await coder.close()
        await other.close()
      }
    })

    it('a risky run_command waits; approved with the CLI, the agent gets the real output', async () => {
      const coder = await connectAgent(url, tokens.coder!)
      try {
        const call = callTool(coder.client, 'run_command', { command: 'touch gone.txt && rm gone.txt && echo removed-it' }, { timeout: 120_000 })
        const [item] = await pending(1)
        expect(Object.keys(item!)).toEqual([...approvalListKeys])
        expect(item).toMatchObject({ agentId: 'coder', tool: 'run_command', status: 'pending', riskFlags: ['deletion'] })
        const approved = await cli('approvals', 'approve', String(item!.id))
        expect(approved.code, approved.stderr).toBe(0)
        const result = await call
        expect(result.structuredContent).toMatchObject({
          ok: true,
          status: 'success',
          data: { exitCode: 0 },
          meta: { approval: { status: 'approved', approvalId: item!.id } }
        })
        expect((result.structuredContent.data as { stdout: string }).stdout).toBe('removed-it\n')
      } finally {
        await coder.close()
      }
    })

    it('denied with the CLI, the agent sees the operator’s reason; nothing ran', async () => {
      const coder = await connectAgent(url, tokens.coder!)
      try {
        await callTool(coder.client, 'write_file', { path: 'keep.txt', content: 'keep me' })
        // A deletion of a path known only at run time asks (one the checkpoint keeps would not: it can be undone).
        const call = callTool(coder.client, 'run_command', { command: 'rm "$(printf keep.txt)"' }, { timeout: 120_000 })
        const [item] = await pending(1)
        const denied = await cli('approvals', 'deny', String(item!.id), '--reason', 'keep.txt stays')
        expect(denied.code, denied.stderr).toBe(0)
        const result = await call
        expect(result.isError).toBe(true)
        expect(result.structuredContent).toMatchObject({ ok: false, status: 'blocked', error: { code: 'approval.denied' } })
        expect(result.structuredContent.error!.message).toContain('keep.txt stays')
        const still = await callTool(coder.client, 'read_file', { path: 'keep.txt' })
        expect(still.structuredContent.data).toMatchObject({ content: 'keep me' })
      } finally {
        await coder.close()
      }
    })

    it('an item nobody decides expires and the call is denied, saying so (fail closed)', async () => {
      const quick = await connectAgent(url, tokens.quick!)
      try {
        const result = await callTool(quick.client, 'run_command', { command: 'touch x && rm x' }, { timeout: 120_000 })
        expect(result.structuredContent).toMatchObject({ ok: false, status: 'blocked', error: { code: 'approval.denied' } })
        expect(result.structuredContent.error!.message).toMatch(/expired/)
        const all = JSON.parse((await cli('approvals', 'list', '--json', '--all')).stdout) as Listed[]
        expect(all.find((item) => item.agentId === 'quick')).toMatchObject({ status: 'expired' })
      } finally {
        await quick.close()
      }
    })

    it('a wrong or missing token and a foreign Host are refused before anything runs', async () => {
      const body = JSON.stringify(initializeBody)
      expect((await rawRequest(url, { headers: mcpHeaders(), body })).status).toBe(401)
      expect((await rawRequest(url, { headers: mcpHeaders(`${tokens.coder!}x`), body })).status).toBe(401)
      expect((await rawRequest(url, { headers: mcpHeaders('alk_not-a-real-token'), body })).status).toBe(401)
      const port = new URL(url).port
      expect((await rawRequest(url, { headers: mcpHeaders(tokens.coder!, { host: `evil.example:${port}` }), body })).status).toBe(421)
      expect((await rawRequest(url, { headers: mcpHeaders(tokens.coder!, { origin: 'http://evil.example' }), body })).status).toBe(403)
    })

    it('approve as a rule for `npm test`: the identical call then runs with no queue item and names the rule; `npm test; rm -rf build` is not covered', async () => {
      const tester = await connectAgent(url, tokens.tester!)
      try {
        const first = callTool(tester.client, 'run_command', { command: 'npm test' }, { timeout: 120_000 })
        const [item] = await pending(1)
        const approved = await cli('approvals', 'approve', String(item!.id), '--scope', 'rule')
        expect(approved.code, approved.stderr).toBe(0)
        const firstResult = await first
        expect(firstResult.structuredContent.meta).toMatchObject({ approval: { status: 'approved', approvalId: item!.id } })
        const rules = JSON.parse((await cli('rules', 'list', '--json')).stdout) as { id: string; agentId: string; scope: string }[]
        expect(rules).toHaveLength(1)
        expect(rules[0]).toMatchObject({ agentId: 'tester', scope: 'agent' })

        const again = await callTool(tester.client, 'run_command', { command: 'npm test' }, { timeout: 120_000 })
        expect(again.structuredContent.meta).toMatchObject({ approval: { status: 'approved', ruleId: rules[0]!.id } })
        const history = JSON.parse((await cli('history', '--agent', 'tester', '--json')).stdout) as { approval?: { ruleId?: string } }[]
        expect(history.some((row) => row.approval?.ruleId === rules[0]!.id)).toBe(true)

        const widened = callTool(tester.client, 'run_command', { command: 'npm test; rm -rf build' }, { timeout: 120_000 })
        const [asked] = await pending(1)
        expect(asked).toMatchObject({ agentId: 'tester', status: 'pending' })
        expect((await cli('approvals', 'deny', String(asked!.id), '--reason', 'not covered')).code).toBe(0)
        expect((await widened).structuredContent).toMatchObject({ status: 'blocked' })

        const home = await callTool(tester.client, 'run_command', { command: 'npm test; rm -rf ~' })
        expect(home.structuredContent).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'deny.rm_root' } } })
        expect(home.structuredContent.meta).not.toHaveProperty('approval')
      } finally {
        await tester.close()
      }
    })

    it('a pending item survives a restart of serve; the agent’s retry joins it and the CLI’s approval reaches it', async () => {
      let coder = await connectAgent(url, tokens.coder!)
      const lost = callTool(coder.client, 'run_command', { command: 'touch old.txt && rm old.txt && echo after-restart' }, { timeout: 120_000 }).catch(
        (error: unknown) => error
      )
      const [item] = await pending(1)
      expect(await serve.stop()).toBe(0)
      // The console that held the call is gone; the client gives up on it.
      await coder.close()
      await lost
      await start()
      const [survivor] = await pending(1)
      expect(survivor).toMatchObject({ id: item!.id, status: 'pending', agentId: 'coder' })

      coder = await connectAgent(url, tokens.coder!)
      try {
        const retry = callTool(coder.client, 'run_command', { command: 'touch old.txt && rm old.txt && echo after-restart' }, { timeout: 120_000 })
        // The retry joins the surviving item rather than adding one.
        await expect.poll(async () => (JSON.parse((await cli('approvals', 'list', '--json')).stdout) as Listed[]).length, { timeout: 10_000 }).toBe(1)
        await new Promise((resolve) => setTimeout(resolve, 1500))
        const approved = await cli('approvals', 'approve', String(item!.id))
        expect(approved.code, approved.stderr).toBe(0)
        const result: GatewayToolResult = await retry
        expect(result.structuredContent).toMatchObject({ ok: true, meta: { approval: { approvalId: item!.id } } })
        expect((result.structuredContent.data as { stdout: string }).stdout).toBe('after-restart\n')
      } finally {
        await coder.close()
      }
    })
  }
)
