import { spawn } from 'node:child_process'
import { it } from 'vitest'
import { BubblewrapProvider } from '../src/main/providers'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { checkGvisorHost } from '../src/main/providers/gvisor/gvisor-host'
import { GvisorProvider } from '../src/main/providers/gvisor/gvisor-provider'
import { makeTempDir } from '../test/support/temp-home'
import { actionPath } from './support/action-path'
import { compare, record, type BenchResult } from './support/measure'

const env = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' }

function bareSpawn(argv: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.resume()
    child.on('error', reject)
    child.on('close', () => resolve())
  })
}

const python = ['python3', '-c', 'print(1)']

/**
 * gVisor beside bubblewrap in one run: `run_code` print(1) through the full dispatcher on each, each
 * against the same bare spawn; a gVisor call on a ready handle ("warm": the handle, host check and
 * toolchains are done; every call still gets a fresh sandbox with its own kernel), and a cold start
 * (a new provider: host check, trial runs and toolchain probes, then the first call). Docker's warm
 * container figure comes from docker.bench.ts in the same `npm run bench`.
 */
it('gvisor: run_code print(1) warm and cold, beside bubblewrap, vs a bare spawn', async () => {
  const dir = makeTempDir('airlock-bench-gvisor-', { outsideTmp: true })
  const gvisor = await checkGvisorHost({ home: dir.path })
  if (!gvisor.ok) {
    record('gvisor', [{ name: 'gvisor.run_code_python.ratio_vs_bare', unit: 'ms', median: 0, p95: 0, samples: 0, note: `not measured: ${gvisor.reason}` }])
    dir.remove()
    return
  }
  const results: BenchResult[] = []
  const gvisorPath = actionPath(makeTempDir('airlock-bench-gv-', { outsideTmp: true }).path, [new GvisorProvider({ home: dir.path })], {
    providers: ['gvisor']
  })
  await gvisorPath.runCode()
  results.push(
    await compare({
      name: 'gvisor.run_code_python.ratio_vs_bare',
      samples: 30,
      pipeline: () => gvisorPath.runCode(),
      baseline: () => bareSpawn(python),
      note: 'run_code {python, print(1)} through the full dispatcher on gvisor (a fresh runsc sandbox per call: bundle, bind stage, cgroup, seccomp inside gVisor) vs a bare python3 -c spawn'
    })
  )
  await gvisorPath.close()
  let round = 0
  results.push(
    await compare({
      name: 'gvisor.cold_start_run_code.ratio_vs_bare',
      samples: 5,
      warmup: 0,
      pipeline: async () => {
        const cold = actionPath(makeTempDir(`airlock-bench-gvc${round++}-`, { outsideTmp: true }).path, [new GvisorProvider({ home: dir.path })], {
          providers: ['gvisor']
        })
        await cold.runCode()
        await cold.close()
      },
      baseline: () => bareSpawn(python),
      note: 'a new gvisor provider: host check (runsc version, trial runs, seccomp and clone3 checks), toolchain probes, then the first run_code'
    })
  )
  if ((await checkBubblewrapHost()).ok) {
    const bubblewrapPath = actionPath(makeTempDir('airlock-bench-gvbw-', { outsideTmp: true }).path, [new BubblewrapProvider()], { providers: ['bubblewrap'] })
    await bubblewrapPath.runCode()
    results.push(
      await compare({
        name: 'gvisor.beside.bubblewrap_run_code_python.ratio_vs_bare',
        samples: 30,
        pipeline: () => bubblewrapPath.runCode(),
        baseline: () => bareSpawn(python),
        note: 'the same call on bubblewrap in the same run, for the side-by-side table'
      })
    )
    await bubblewrapPath.close()
  }
  record('gvisor', results)
  dir.remove()
})
