import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import type { AgentProfile } from '../../src/shared/agents'
import { createHost, type Host } from '../../src/main/host'
import { makeTempDir } from './temp-home'

/** What a sandboxed program printed, and how it ended. */
export type RunData = { exitCode: number; stdout: string; stderr: string }

/** One egress lineage entry as history shows it. */
export type LineageEntry = { kind?: string; endpoint?: string; decision?: string; address?: string; bytesDown?: number }

/** The test wheel's name (`airlock-probe` 1.0): what pip downloads from the stage's index. */
export const probeWheel = 'airlock_probe-1.0-py3-none-any.whl'

/**
 * A stage for egress tests through the real action path: a real host in a temporary home, a
 * loopback HTTP server that is also a PEP 503 package index with one wheel (every request it sees
 * is kept in `seen` as `METHOD host url`), the given names pinned to it (`net hosts`), the given
 * agents each with a session, and an operator who approves every command-policy question (items
 * of kind `action`; the network items are the tests' own to decide).
 */
export async function openEgressStage(options: { prefix: string; pinned: string[]; agents: Record<string, Partial<AgentProfile>> }) {
  const dir = makeTempDir(options.prefix, { outsideTmp: true })
  const wheel = makeWheel(dir.path)
  const seen: string[] = []
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.headers.host} ${req.url}`)
    if (req.url === '/simple/airlock-probe/')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><a href="/files/${probeWheel}">${probeWheel}</a></body></html>`)
    if (req.url === `/files/${probeWheel}`) return void res.end(wheel)
    res.end(`hello from ${req.headers.host}${req.url}\n`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  const host: Host = createHost({ home: dir.path, logError: () => undefined })
  await host.recovered
  for (const name of options.pinned) host.store.network.addHost({ name, address: '127.0.0.1' })
  const sessions: Record<string, string> = {}
  for (const [agent, profile] of Object.entries(options.agents)) {
    host.agents.service.create(agent, { profile })
    sessions[agent] = host.agents.sessions.start(agent, 'test').sessionId
  }
  const approver = setInterval(() => {
    for (const item of host.approvals.list()) if (item.kind === 'action') host.approvals.decide({ id: item.id, decision: 'approve' })
  }, 100)
  const lineage = (callId: unknown) => host.agents.history.detail(callId as string).lineage as LineageEntry[]
  const call = async (agent: string, tool: 'run_command' | 'run_code', input: Record<string, unknown>) => {
    const result = await host.agents.sessions.execute({ sessionId: sessions[agent]!, tool, input })
    return { result, data: result.data as RunData, lineage: () => lineage(result.meta.callId) }
  }
  return {
    host,
    port,
    seen,
    sessions,
    lineage,
    /** A shell command of `agent` through `run_command`. */
    run: (agent: string, command: string) => call(agent, 'run_command', { command }),
    /** Python source of `agent` through `run_code`. */
    python: (agent: string, sourceCode: string) => call(agent, 'run_code', { language: 'python', sourceCode }),
    networkItems: (agentId?: string) => host.approvals.list().filter((item) => item.kind === 'network' && (agentId === undefined || item.agentId === agentId)),
    close: async () => {
      clearInterval(approver)
      await host.dispose()
      dir.remove()
      server.close()
    }
  }
}

export type EgressStage = Awaited<ReturnType<typeof openEgressStage>>

/** A minimal wheel made with python's zipfile. */
function makeWheel(folder: string): Buffer {
  const script = [
    'import sys, zipfile',
    'with zipfile.ZipFile(sys.argv[1], "w") as z:',
    '    z.writestr("airlock_probe/__init__.py", "")',
    '    z.writestr("airlock_probe-1.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: airlock-probe\\nVersion: 1.0\\n")',
    '    z.writestr("airlock_probe-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\\nGenerator: airlock-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")',
    '    z.writestr("airlock_probe-1.0.dist-info/RECORD", "")'
  ].join('\n')
  const made = spawnSync('python3', ['-c', script, join(folder, probeWheel)], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`could not make the test wheel: ${made.stderr}`)
  return readFileSync(join(folder, probeWheel))
}
