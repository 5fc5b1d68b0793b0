import { join } from 'node:path'
import { createHost, type Host } from '../../src/main/host'
import type { ActionResult } from '../../src/main/core'
import { makeTempDir } from './temp-home'

/** A skill of the tests: a Python entry that prints its args and the sha256 of its own bytes. */
export const echoSkill = {
  name: 'echo-args',
  description: 'Prints its arguments as a Python list.',
  entry: 'main.py',
  language: 'python',
  inputs: { type: 'array', items: { type: 'string' } },
  files: [
    {
      path: 'main.py',
      content:
        'import hashlib, sys\nfrom lib.fmt import show\nprint(show(sys.argv[1:]))\nprint("self", hashlib.sha256(open(__file__, "rb").read()).hexdigest())\n'
    },
    { path: 'lib/fmt.py', content: 'def show(args):\n    return "args=" + repr(args)\n' }
  ]
}

/**
 * A real host in a temp home (outside /tmp, so bubblewrap can reach the workspace), one agent
 * `coder` running on bubblewrap, and an open session of it: skill calls go where an agent's do.
 */
export async function skillHost(prefix: string) {
  const dir = makeTempDir(prefix, { outsideTmp: true })
  const host: Host = createHost({ home: dir.path, logError: () => undefined })
  await host.recovered
  host.agents.service.create('coder', { profile: { providers: ['bubblewrap'] } })
  const { sessionId } = host.agents.sessions.start('coder', 'test')
  const workspace = join(host.paths.workspaces, 'coder')
  const call = (tool: string, input: unknown): Promise<ActionResult> => host.agents.sessions.execute({ sessionId, tool, input })
  const ipc = (name: string, input: unknown) => host.dispatch(`airlock:skills:${name}`, input, { transport: 'websocket' })
  const close = async () => {
    await host.dispose()
    dir.remove()
  }
  return { dir, host, workspace, call, ipc, close, skillDir: join(workspace, 'skills', echoSkill.name) }
}

/** The `data` of a run_skill that ran. */
export function runData(result: ActionResult): { stdout: string; stderr: string; exitCode: number } {
  return result.data as { stdout: string; stderr: string; exitCode: number }
}
