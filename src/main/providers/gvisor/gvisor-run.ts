import { randomBytes } from 'node:crypto'
import type { ChildProcess } from 'node:child_process'
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
  /** Where the clean-ups done after a result are kept until done, so that a release can wait for them. */
  cleanups?: Set<Promise<void>>
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
  /** Ends the sandbox for good (cgroup now, runsc state and bundle just after); says which limit ended the run, if one did. */
  finish(exitCode: number): Promise<CommandResult['limitHit'] | undefined>
}

/** The program of a run given to a spare sandbox once it has booted. */
export type SpareProgram = { argv: string[]; cwd: string; env: Record<string, string> }

/** A sandbox booted ahead of its run, its program not yet chosen (see `GvisorSpares`). */
export type GvisorSpare = {
  /** Whether its sandbox still waits (it may have died). */
  alive(): boolean
  /** The run on this sandbox of `program` (sent on its stdin before the run's own input). */
  use(program: SpareProgram): GvisorLaunch
  /** Ends it unused. */
  discard(): Promise<void>
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
  const sandbox = startSandbox(spec, cgroups, plan)
  try {
    sandbox.join()
  } catch (error) {
    throw sandbox.refuse(error)
  }
  return sandbox.launch(() => feedPipe(sandbox.child, goFd, Buffer.from('go\n')))
}

/**
 * Boots a sandbox ahead of its run: the same sandbox as `prepareGvisorRun` makes (same binds,
 * limits, filter), whose program is a trampoline that reads one line on its stdin and evaluates
 * it (`spareLine`: cd to the run's folder, exec the program with its own environment). It joins
 * its cgroup off the event loop and boots at once; a run then costs only its program, still in a
 * sandbox no earlier run has touched.
 */
export async function bootSpare(spec: GvisorRunSpec, cgroups: CgroupSupport | undefined, plan: Omit<BundlePlan, 'argv' | 'cwd' | 'env'>): Promise<GvisorSpare> {
  const sandbox = startSandbox(spec, cgroups, { ...plan, argv: ['/bin/sh', '-c', trampoline], cwd: '/', env: { PATH: systemPath } })
  try {
    await sandbox.joinInBackground()
  } catch (error) {
    throw sandbox.refuse(error)
  }
  feedPipe(sandbox.child, goFd, Buffer.from('go\n'))
  const alive = () => sandbox.child.exitCode === null && sandbox.child.signalCode === null
  return {
    alive,
    use: (program) => sandbox.launch(() => sandbox.child.stdin!.write(spareLine(program))),
    discard: async () => {
      killGroup(sandbox.child.pid!)
      await sandbox.end()
    }
  }
}

/** The spare's program: one line from stdin, evaluated (newlines inside words arrive as $nl). */
const trampoline = `nl='\n'; IFS= read -r line || exit 126; eval "$line"`

/** The trampoline's line for one run: its folder, then its program with exactly its environment. */
export function spareLine(program: SpareProgram): string {
  const words = [...Object.entries(program.env).map(([name, value]) => `${name}=${value}`), ...program.argv]
  if (words.some((word) => word.includes('\0'))) throw new ProviderError('invalid_program', 'a program argument contains NUL')
  // env would take a program name holding '=' for a variable: such a run gets a sandbox of its own (see `spareServes`).
  return `cd ${shellWord(program.cwd)} || exit 126; exec /usr/bin/env -i ${words.map(shellWord).join(' ')}\n`
}

/** Whether a spare can run this program (else the run boots its own sandbox). */
export function spareServes(argv: readonly string[]): boolean {
  return argv.length > 0 && !argv[0]!.includes('=')
}

function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`).replace(/\n/g, `'"$nl"'`)}'`
}

/** A sandbox's launcher spawned with its bundle and cgroup, not yet placed; what each way of starting it shares. */
function startSandbox(spec: GvisorRunSpec, cgroups: CgroupSupport | undefined, plan: BundlePlan) {
  const id = `airlock-${randomBytes(8).toString('hex')}`
  const bundle = join(spec.places.bundles, id)
  mkdirSync(bundle, { mode: 0o700 })
  const cgroup = cgroups?.create({ pids: spec.pids, memoryBytes: spec.memoryBytes })
  let child: ChildProcess
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
    child.stdin!.on('error', () => undefined)
  } catch (error) {
    void cgroup?.finish()
    rmSync(bundle, { recursive: true, force: true })
    throw new ProviderError('cgroup_unavailable', `could not prepare the gVisor sandbox: ${(error as Error).message}`, { cause: error })
  }
  /** runsc's state and the bundle: not needed for the result, so removed just after it. */
  const cleanUp = () => {
    const done: Promise<void> = deleteSandbox(spec, id)
      .catch(() => undefined)
      .finally(() => {
        rmSync(bundle, { recursive: true, force: true })
        spec.cleanups?.delete(done)
      })
    spec.cleanups?.add(done)
  }
  const end = async () => {
    const verdict = await cgroup?.finish()
    cleanUp()
    return verdict
  }
  return {
    child,
    join: () => {
      if (cgroup && child.pid !== undefined) cgroup.join(child.pid)
    },
    joinInBackground: async () => {
      if (cgroup && child.pid !== undefined) await cgroup.joinInBackground(child.pid)
    },
    /** A sandbox outside its cgroup would have no memory or pids limit: never start it. */
    refuse(error: unknown): Error {
      if (child.pid !== undefined) killGroup(child.pid)
      void end()
      return new ProviderError('cgroup_unavailable', `could not place the gVisor sandbox in its cgroup: ${(error as Error).message}`, { cause: error })
    },
    end,
    /** The run: `start` lets the program go; the CPU budget is watched from then on. */
    launch(start: () => void): GvisorLaunch {
      let watch: NodeJS.Timeout | undefined
      let cpuExceeded = false
      child.on('exit', () => clearInterval(watch))
      return {
        cgroup,
        prepared: {
          child,
          begin: () => {
            start()
            const budget = spec.cpuBudgetSeconds
            if (budget === undefined || cgroup?.cpuSeconds() === undefined) return
            watch = setInterval(() => {
              if ((cgroup.cpuSeconds() ?? 0) <= budget) return
              cpuExceeded = true
              clearInterval(watch)
              killGroup(child.pid!)
            }, cpuWatchMs)
          }
        },
        async finish(exitCode) {
          clearInterval(watch)
          const verdict = await end()
          if (cpuExceeded) return 'cpu'
          return verdict ?? (exitCode === 128 + 24 ? 'cpu' : undefined)
        }
      }
    }
  }
}

/** Ends what runsc keeps of a sandbox (its state and, were any left, its processes). */
export async function deleteSandbox(spec: { programs: Pick<GvisorPrograms, 'runsc'>; places: GvisorPlaces }, id: string): Promise<void> {
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
