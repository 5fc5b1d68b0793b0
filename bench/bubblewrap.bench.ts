import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { it } from 'vitest'
import { claimWorkspace, ExecutionResourceManager, type ProgramRunner } from '../src/main/core'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { BubblewrapProvider } from '../src/main/providers'
import { makeTempDir } from '../test/support/temp-home'
import { actionPath } from './support/action-path'
import { compare, record } from './support/measure'

const env = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' }

function bareSpawn(cwd: string, argv = ['python3', '-c', 'print(1)']): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.resume()
    child.on('error', reject)
    child.on('close', () => resolve())
  })
}

it('bubblewrap: run_code print(1) through the dispatcher, and python3 -c print(1) through the provider, vs a bare spawn', async () => {
  const host = await checkBubblewrapHost()
  if (!host.ok) {
    record('bubblewrap', [
      { name: 'bubblewrap.run_code_python.ratio_vs_bare', unit: 'ms', median: 0, p95: 0, samples: 0, note: `not measured: ${host.reason}` }
    ])
    return
  }
  const dir = makeTempDir('airlock-bench-', { outsideTmp: true })
  const workspace = join(dir.path, 'ws')
  claimWorkspace(workspace)
  const manager = new ExecutionResourceManager().registerProvider(new BubblewrapProvider())
  const handle = await manager.ensure({ kind: 'code_execution', providerId: 'bubblewrap', policy: { workspaceRoots: [workspace] } })
  const runner = handle.resource as ProgramRunner
  const agentPath = actionPath(dir.path, [new BubblewrapProvider()], { providers: ['bubblewrap'] })
  const runCode = await compare({
    name: 'bubblewrap.run_code_python.ratio_vs_bare',
    samples: 60,
    pipeline: () => agentPath.runCode(),
    baseline: () => bareSpawn(workspace, ['python3', '-c', 'print(1)']),
    note: 'run_code {python, print(1)} through the full dispatcher (validation, hooks, history port, session hold, bundle, grant, ensure, bwrap sandbox with seccomp and per-run cgroup, collect, release) vs a bare python3 -c spawn'
  })
  await agentPath.close()
  const result = await compare({
    name: 'bubblewrap.provider_exec_python.ratio_vs_bare',
    samples: 60,
    pipeline: () => runner.exec({ argv: ['python3', '-c', 'print(1)'] }),
    baseline: () => bareSpawn(workspace),
    note: 'reference: the provider alone (exec on a ready handle: bwrap sandbox, seccomp, per-run cgroup) vs bare spawn'
  })
  // For reference: bubblewrap alone (all namespaces, no seccomp, no cgroup) against the same bare spawn.
  const bwrapAlone = await compare({
    name: 'bubblewrap.bare_bwrap_python.ratio_vs_bare',
    samples: 60,
    pipeline: () => bareSpawn(workspace, ['bwrap', '--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', 'python3', '-c', 'print(1)']),
    baseline: () => bareSpawn(workspace),
    note: 'reference: what bwrap itself costs on this machine'
  })
  // The provider's share of the gateway's `run_command true` (issue 29): a ready handle's run of `bash -c true` against bwrap running `true` directly.
  const providerTrue = await compare({
    name: 'bubblewrap.provider_run_true.ratio_vs_bare_bwrap',
    samples: 120,
    pipeline: () => runner.run({ command: 'true' }),
    baseline: () => bareSpawn(workspace, ['bwrap', '--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true']),
    note: "reference: the provider alone, run_command's bash -c true on a ready handle (warm launcher, seccomp, per-run cgroup, binds) vs bwrap --unshare-all --ro-bind / / --proc --dev true"
  })
  await manager.releaseAll()
  dir.remove()
  record('bubblewrap', [runCode, result, bwrapAlone, providerTrue])
})
