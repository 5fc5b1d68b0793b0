import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { CommandResult } from '../../core'
import { feedPipe, runBounded, spawnGroup, type PreparedProcess } from '../runner/bounded-process'
import type { CgroupSupport, RunCgroup } from '../runner/cgroup-limits'
import { systemPath } from '../runner/run-limits'
import { ProviderError } from '../../core/provider-error'
import { writeBundle, type BundlePlan } from './oci-bundle'

/** The host programs a gVisor run uses, resolved once from the system directories (never a caller's PATH). */
export type GvisorPrograms = { runsc: string; bwrap: string; bash: string }

/** Where runsc keeps its state (`--root`) and the runs' bundles: a folder only root reaches. */
export type GvisorPlaces = { state: string; bundles: string }

/** What the runs of one handle share. */
export type GvisorRunSpec = {
  programs: GvisorPrograms
  places: GvisorPlaces
  /** Host cgroup limits of the whole sandbox (its kernel, gofer and the program's processes). */
  pids?: number
  memoryBytes?: number
  /** CPU seconds the whole sandbox may use (enforced where the cgroup accounts CPU). */
  cpuBudgetSeconds?: number
}

/**
 * Host tasks a sandbox may hold in its pids cgroup for a program budget of `processes`: runsc, its
 * gofer and the Sentry are Go programs with their threads, and the ptrace platform adds a stub
 * process and tracer threads per program process (measured here: ~70 tasks at rest, ~9 more per
 * process). The cgroup is the backstop; the program's own processes are held to their budget
 * exactly by RLIMIT_NPROC inside the sandbox's kernel.
 */
export function sandboxHostTasks(processes: number): number {
  return 128 + processes * 10
}
/** Memory of the sandbox's own kernel and gofer, on top of the program's budget. */
export const sandboxKernelBytes = 192 * 1024 * 1024

/** How often a run's CPU use is read against its budget. */
const cpuWatchMs = 100
/** The descriptor the launcher waits on until the host has placed it in its cgroup. */
const goFd = 3
const firstBindFd = 4

/** One prepared gVisor run: the process to start, its cgroup, and the clean-up once it is over. */
export type GvisorLaunch = {
  prepared: PreparedProcess
  cgroup?: RunCgroup
  /** Ends the sandbox for good (runsc state, bundle, cgroup); says which limit ended the run, if one did. */
  finish(exitCode: number): Promise<CommandResult['limitHit'] | undefined>
}

/**
 * Prepares one run: a fresh sandbox with its own kernel, made for this run only (nothing of an
 * earlier run is there: processes, /tmp, kernel state), its bundle written, its launcher spawned
 * and placed in a cgroup of its own. The launcher (bash, waiting on fd 3 until the host has placed
 * it) execs `bwrap`, used here only for its race-checked `--bind-fd`: in a mount namespace of its
 * own it binds each descriptor Airlock opened at its stage path, closes them, and execs
 * `runsc run` (`--network=none`, or the host's network for `full`). runsc is told to leave
 * cgroups alone (`--ignore-cgroups`): the host's cgroup, joined before anything runs, holds the
 * sandbox's kernel and every process in it.
 */
export function prepareGvisorRun(spec: GvisorRunSpec, cgroups: CgroupSupport | undefined, plan: BundlePlan): GvisorLaunch {
  const id = `airlock-${randomBytes(8).toString('hex')}`
  const bundle = join(spec.places.bundles, id)
  mkdirSync(bundle, { mode: 0o700 })
  const cgroup = cgroups?.create({ pids: spec.pids, memoryBytes: spec.memoryBytes })
  let child
  try {
    const stage = writeBundle(bundle, plan)
    child = spawnGroup(launcherArgv(spec, plan, stage, bundle, id), {
      cwd: '/',
      env: { PATH: systemPath, LANG: 'C.UTF-8' },
      stdin: 'pipe',
      extraPipes: 1,
      passFds: plan.binds.map((bind) => bind.fd)
    })
    child.on('error', () => undefined)
    if (cgroup && child.pid !== undefined) cgroup.join(child.pid)
  } catch (error) {
    if (child?.pid !== undefined) killGroup(child.pid)
    void cgroup?.finish()
    rmSync(bundle, { recursive: true, force: true })
    throw new ProviderError('cgroup_unavailable', `could not prepare the gVisor sandbox: ${(error as Error).message}`, { cause: error })
  }
  const started = child
  let watch: NodeJS.Timeout | undefined
  let cpuExceeded = false
  started.on('exit', () => clearInterval(watch))
  return {
    cgroup,
    prepared: {
      child: started,
      begin: () => {
        feedPipe(started, goFd, Buffer.from('go\n'))
        const budget = spec.cpuBudgetSeconds
        if (budget === undefined || cgroup?.cpuSeconds() === undefined) return
        watch = setInterval(() => {
          if ((cgroup.cpuSeconds() ?? 0) <= budget) return
          cpuExceeded = true
          clearInterval(watch)
          killGroup(started.pid!)
        }, cpuWatchMs)
      }
    },
    async finish(exitCode) {
      clearInterval(watch)
      await deleteSandbox(spec, id)
      const verdict = await cgroup?.finish()
      rmSync(bundle, { recursive: true, force: true })
      if (cpuExceeded) return 'cpu'
      return verdict ?? (exitCode === 128 + 24 ? 'cpu' : undefined)
    }
  }
}

/** Ends what runsc keeps of a sandbox (its state and, were any left, its processes). */
export async function deleteSandbox(spec: Pick<GvisorRunSpec, 'programs' | 'places'>, id: string): Promise<void> {
  await runBounded({
    argv: [spec.programs.runsc, '--root', spec.places.state, 'delete', '--force', id],
    cwd: '/',
    env: { PATH: systemPath, LANG: 'C.UTF-8' },
    timeoutMs: 10_000,
    maxOutputBytes: 4096
  })
}

/** The launcher: wait to be placed, bind the opened descriptors at their stage paths, run the sandbox. */
function launcherArgv(spec: GvisorRunSpec, plan: BundlePlan, stage: string[], bundle: string, id: string): string[] {
  const bindArgs = stage.flatMap((path, index) => ['--bind-fd', String(firstBindFd + index), path])
  return [
    spec.programs.bash,
    '--norc',
    '--noprofile',
    '-c',
    // The host writes one line once the launcher is in its cgroup; nothing runs before.
    `IFS= read -r go <&${goFd} || exit 126; exec ${goFd}<&-; exec "$@"`,
    'airlock-gvisor',
    spec.programs.bwrap,
    // Root's bwrap keeps the host's view (/ bound whole) and adds only the binds; runsc needs its capabilities.
    '--dev-bind',
    '/',
    '/',
    ...bindArgs,
    '--cap-add',
    'ALL',
    '--die-with-parent',
    '--',
    spec.programs.runsc,
    '--root',
    spec.places.state,
    '--ignore-cgroups',
    // The sandbox's kernel applies the bundle's seccomp filter to the program (the same policy as every provider's).
    '--oci-seccomp',
    `--network=${plan.network === 'full' ? 'host' : 'none'}`,
    'run',
    '--bundle',
    bundle,
    id
  ]
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // already gone
  }
}
