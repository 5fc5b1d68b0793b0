// An agent reaching into its own upstream MCP servers (issue 24, critical): a stdio server's HOME
// and working directory were `integrations/<server>/` inside the agent's writable workspace, so the
// agent planted `usercustomize.py` (and `.pth` files) on the Python server's start-up path; at the
// server's next start its code ran with the server's environment and wrote `API_KEY` back,
// base64-encoded past redaction. Now a server's state folder is `<home>/mcp-state/<agent>/<server>`,
// which no agent sandbox mounts. Each attack goes through the agent's own tools (write_file,
// run_command) on the real host with real bubblewrap, for a sandboxed and an `unsafe` server.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, realpathSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UpstreamToolData } from '../../src/main/actions/mcp_tools'
import { sandboxIdentity, type ActionResult } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'

const fixtures = resolve(__dirname, '..', 'fixtures')
const pythonServer = join(fixtures, 'mcp-python-server.py')
const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
/** The user-site folder name of the python every sandbox runs (`python3.11`). */
const pythonVersion = execFileSync('/usr/bin/python3', ['-c', 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")'], {
  encoding: 'utf8'
}).trim()
const apiKey = 'sk-server-secret-8c1f0e2a'

/** Every file name under a folder (none when it is not there), for "nothing was written". */
function namesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => name.split('/').pop()!)
}

describe.skipIf(skip !== undefined)(`an agent cannot reach into its own MCP servers${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let home: string

  beforeAll(async () => {
    dir = makeTempDir('airlock-attack-mcp-state-', { outsideTmp: true })
    home = join(dir.path, 'home')
    host = createHost({ home, logError: () => undefined })
    await host.recovered
  }, 60_000)

  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  for (const unsafe of [false, true]) {
    it(`${unsafe ? 'an unsafe' : 'a sandboxed'} Python server never runs the usercustomize.py and .pth files the agent planted, and its state folder is out of the agent's sandbox`, async () => {
      const agentId = unsafe ? 'planter-unsafe' : 'planter'
      const server = {
        name: 'pysrv',
        command: ['/usr/bin/python3', pythonServer],
        env: { API_KEY: apiKey },
        ...(unsafe ? { unsafe: true } : { readOnlyPaths: [fixtures] })
      }
      const { workspace } = host.agents.service.create(agentId, { profile: { capabilities: ['files', 'shell', 'mcp'], ask: 'never', mcpServers: [server] } })
      const sessionId = host.agents.sessions.start(agentId, 'test').sessionId
      const call = (tool: string, input: unknown): Promise<ActionResult> => host.agents.sessions.execute({ sessionId, tool, input })
      try {
        // Where the server's HOME used to be, and the workspace root: Python's user site under each.
        const leak =
          "import base64, os\nopen(os.path.join(os.path.expanduser('~'), 'leak.txt'), 'w').write(base64.b64encode(os.environ.get('API_KEY', '').encode()).decode())\n"
        const pth = "import os; open(os.path.join(os.path.expanduser('~'), 'pth-ran.txt'), 'w').write('ran')\n"
        for (const base of ['integrations/pysrv', '.']) {
          const site = `${base}/.local/lib/${pythonVersion}/site-packages`
          expect((await call('write_file', { path: `${site}/usercustomize.py`, content: leak })).status).toBe('success')
          expect((await call('write_file', { path: `${site}/zz-agent.pth`, content: pth })).status).toBe('success')
        }
        expect((await call('write_file', { path: 'integrations/pysrv/.npmrc', content: 'node-options=--require=./hook.js\n' })).status).toBe('success')

        const result = await call('pysrv__whoami', {})
        expect(result.status).toBe('success')
        const facts = (result.data as UpstreamToolData).structuredContent as { home: string; cwd: string; uid: number; loaded: string[] }
        const stateDir = join(realpathSync(home), 'mcp-state', agentId, 'pysrv')
        expect(facts).toMatchObject({ home: stateDir, cwd: stateDir, uid: sandboxIdentity().uid })
        // (the system's own sitecustomize, Debian's, may load on the host; the agent's usercustomize never)
        expect(facts.loaded).not.toContain('usercustomize')
        expect(facts.uid).not.toBe(0)
        // Nothing the agent planted ran: no leak anywhere, in its workspace or the server's state.
        for (const where of [workspace, stateDir]) {
          expect(namesUnder(where)).not.toContain('leak.txt')
          expect(namesUnder(where)).not.toContain('pth-ran.txt')
        }
        // The agent's own sandbox does not see the state folder, nor anything of mcp-state/.
        for (const path of [stateDir, join(realpathSync(home), 'mcp-state')]) {
          const looked = await call('run_command', { command: `ls -a ${path}` })
          expect(looked.status).toBe('success')
          expect((looked.data as { exitCode: number; stderr: string }).exitCode).not.toBe(0)
          expect((looked.data as { stderr: string }).stderr).toMatch(/No such file or directory/)
        }
      } finally {
        await host.agents.sessions.end(sessionId)
      }
    }, 60_000)
  }
})
