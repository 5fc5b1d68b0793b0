import { spawn } from 'node:child_process'
import { it } from 'vitest'
import { BubblewrapProvider, checkEngine, createDockerClient, DockerProvider } from '../src/main/providers'
import { ensureTestImages } from '../test/support/docker-images'
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

/** Folders the paths below work in, removed at the end. */
const temps: ReturnType<typeof makeTempDir>[] = []
function temp(prefix: string): string {
  const made = makeTempDir(prefix, { outsideTmp: true })
  temps.push(made)
  return made.path
}

/**
 * gVisor beside bubblewrap in one run: `run_code` print(1) through the full dispatcher on each, each
 * against the same bare spawn; a gVisor call on a ready handle (the handle, host check and
 * toolchains are done; run_code binds its execution area, so it boots a sandbox of its own), the
 * same program by `run_command` (which takes the spare sandbox booted ahead), and a cold start
 * (a new provider: host check, trial runs and toolchain probes, then the first call), and docker's
 * warm session container in the same run.
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
  const gvisorPath = actionPath(temp('airlock-bench-gv-'), [new GvisorProvider({ home: dir.path })], {
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
  await gvisorPath.runCommand("python3 -c 'print(1)'")
  results.push(
    await compare({
      name: 'gvisor.run_command_python.ratio_vs_bare',
      samples: 30,
      pipeline: () => gvisorPath.runCommand("python3 -c 'print(1)'"),
      baseline: () => bareSpawn(python),
      note: "run_command python3 -c 'print(1)' through the full dispatcher on gvisor, calls back to back: each waits for the spare sandbox the previous call started booting (a spare boots in ~0.15 s) vs a bare python3 -c spawn"
    })
  )
  results.push(
    await compare({
      name: 'gvisor.run_command_python_paced.ratio_vs_bare',
      samples: 20,
      pauseMs: 500,
      pipeline: () => gvisorPath.runCommand("python3 -c 'print(1)'"),
      baseline: () => bareSpawn(python),
      note: "the same with 0.5 s between calls (untimed; an agent's calls come seconds apart): the spare sandbox is booted and waiting when the call comes"
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
        const cold = actionPath(temp(`airlock-bench-gvc${round++}-`), [new GvisorProvider({ home: dir.path })], {
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
    const bubblewrapPath = actionPath(temp('airlock-bench-gvbw-'), [new BubblewrapProvider()], { providers: ['bubblewrap'] })
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
  const docker = createDockerClient()
  if ((await checkEngine(docker)).ok) {
    await ensureTestImages(docker)
    const dockerPath = actionPath(temp('airlock-bench-gvdk-'), [new DockerProvider({ home: dir.path, docker })], {
      providers: ['docker']
    })
    await dockerPath.runCode()
    results.push(
      await compare({
        name: 'gvisor.beside.docker_warm_run_code_python.ratio_vs_bare',
        samples: 30,
        pipeline: () => dockerPath.runCode(),
        baseline: () => bareSpawn(python),
        note: "the same call on docker's warm session container in the same run, against the same bare spawn (docker.bench.ts compares it with a direct exec)"
      })
    )
    await dockerPath.close()
    await dockerPath.manager.releaseAll()
  }
  record('gvisor', results)
  for (const made of [dir, ...temps]) made.remove()
})
