import type { ChildProcess } from 'node:child_process'
import { closeSync } from 'node:fs'
import type { CommandResult } from '../../core'
import { feedPipe, spawnGroup, type PreparedProcess } from '../runner/bounded-process'
import type { CgroupSupport, RunCgroup } from '../runner/cgroup-limits'
import type { OpenBind } from './sandbox-binds'
import type { ProtectedBinds } from './protected-binds'
import { entriesKey, type HiddenEntry, type ProtectedWatch } from '../../core/sandbox/workspace-entries'
import {
  bwrapArgsFd,
  encodeRun,
  firstBindFd,
  programFd,
  sandboxArgs,
  sandboxLauncherArgv,
  seccompFd,
  type LauncherPrograms,
  type SandboxLimits,
  type SandboxPlan
} from './sandbox-command'
import { ProviderError } from '../../core/provider-error'

/** A sandbox launcher spawned ahead of its run, already inside its own cgroup, waiting for bwrap's arguments. */
export type WarmLauncher = {
  child: ChildProcess
  cgroup?: RunCgroup
  /** Starts the run: sends bwrap its options and the program (the child then sets up the sandbox and execs). */
  prepared(plan: Omit<SandboxPlan, 'binds'>, program: string[]): PreparedProcess
  /** The descriptor number, inside the launcher, of the handle's `index`-th executions folder (for `SandboxPlan.areas`). */
  anchorFd(index: number): number
  /** Ends it unused (release). */
  discard(): Promise<void>
  /** True when the run used up its CPU budget and was ended for it. */
  readonly cpuExceeded: boolean
}

/** What the launchers of one handle share. */
export type LauncherSpec = {
  programs: LauncherPrograms
  filter: Buffer
  limits: SandboxLimits
  pids?: number
  memoryBytes?: number
  /** CPU seconds all processes of one run may use together (enforced where the cgroup accounts CPU). */
  cpuBudgetSeconds?: number
  /** The host uid/gid the launcher (and so the sandbox) runs as; undefined: Airlock's own (not root). */
  identity?: { uid: number; gid: number }
}

/** How often a run's CPU use is read against its budget. */
const cpuWatchMs = 100

/**
 * Spawns one launcher: the process (as the sandbox identity, with the bind sources as descriptors
 * 6, 7, ..., then the executions folders it may bind areas from), placed by the host in a fresh
 * cgroup before it can run anything of the program (it waits for its filter and bwrap's arguments).
 */
export function spawnLauncher(
  spec: LauncherSpec,
  cgroups: CgroupSupport | undefined,
  binds: OpenBind[],
  anchors: readonly number[] = [],
  hidden: readonly HiddenEntry[] = []
): WarmLauncher {
  const started = startLauncher(spec, cgroups, binds, anchors, hidden)
  try {
    if (started.cgroup && started.child.pid !== undefined) started.cgroup.join(started.child.pid)
  } catch (error) {
    throw started.refuse(error)
  }
  return started.ready()
}

/** `spawnLauncher` with the cgroup joined off the event loop: for spares, which have time (see `RunCgroup.joinInBackground`). */
export async function spawnLauncherInBackground(
  spec: LauncherSpec,
  cgroups: CgroupSupport | undefined,
  binds: OpenBind[],
  anchors: readonly number[] = [],
  hidden: readonly HiddenEntry[] = []
): Promise<WarmLauncher> {
  const started = startLauncher(spec, cgroups, binds, anchors, hidden)
  try {
    if (started.cgroup && started.child.pid !== undefined) await started.cgroup.joinInBackground(started.child.pid)
  } catch (error) {
    throw started.refuse(error)
  }
  return started.ready()
}

/** The launcher process and its cgroup, not yet joined: `ready` once joined, `refuse` when the join failed. */
function startLauncher(spec: LauncherSpec, cgroups: CgroupSupport | undefined, binds: OpenBind[], anchors: readonly number[], hidden: readonly HiddenEntry[]) {
  const cgroup = cgroups?.create({ pids: spec.pids, memoryBytes: spec.memoryBytes })
  const child = spawnGroup(sandboxLauncherArgv(spec.programs, spec.limits, binds.length + anchors.length), {
    cwd: '/',
    env: {},
    stdin: 'pipe',
    extraPipes: 3,
    passFds: [...binds.map((bind) => bind.fd), ...anchors],
    identity: spec.identity
  })
  child.on('error', () => undefined)
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  return {
    child,
    cgroup,
    /** A run outside its cgroup would have no pids or memory limit: never start it. */
    refuse(error: unknown): Error {
      kill()
      void cgroup?.finish()
      return new ProviderError('cgroup_unavailable', `could not place the sandbox in its cgroup: ${(error as Error).message}`, { cause: error })
    },
    ready: () => joinedLauncher(spec, child, cgroup, anchors, binds, hidden, kill)
  }
}

/** The launcher once it is in its cgroup: fed its seccomp filter, waiting for a run. */
function joinedLauncher(
  spec: LauncherSpec,
  child: ChildProcess,
  cgroup: RunCgroup | undefined,
  anchors: readonly number[],
  binds: OpenBind[],
  hidden: readonly HiddenEntry[],
  kill: () => void
): WarmLauncher {
  feedPipe(child, seccompFd, spec.filter)
  let watch: NodeJS.Timeout | undefined
  let cpuExceeded = false
  const stopWatch = () => clearInterval(watch)
  child.on('exit', stopWatch)
  return {
    child,
    cgroup,
    get cpuExceeded() {
      return cpuExceeded
    },
    anchorFd: (index) => {
      if (!Number.isInteger(index) || index < 0 || index >= anchors.length)
        throw new ProviderError('invalid_program', `no executions folder ${index} in this launcher`)
      return firstBindFd + binds.length + index
    },
    prepared: (plan, program) => {
      const encoded = encodeRun(program)
      return {
        child,
        begin: () => {
          const mounts = {
            binds: binds.map(({ dest, writable, masksAirlock }) => ({ dest, writable, masksAirlock })),
            hidden: hidden.map(({ path, directory }) => ({ dest: path, directory }))
          }
          feedPipe(child, bwrapArgsFd, Buffer.from(`${sandboxArgs({ ...plan, ...mounts }).join('\0')}\0`))
          feedPipe(child, programFd, encoded)
          const budget = spec.cpuBudgetSeconds
          if (budget !== undefined && cgroup?.cpuSeconds() !== undefined) {
            watch = setInterval(() => {
              if ((cgroup.cpuSeconds() ?? 0) <= budget) return
              cpuExceeded = true
              stopWatch()
              kill()
            }, cpuWatchMs)
          }
        }
      }
    },
    async discard() {
      stopWatch()
      kill()
      await cgroup?.finish()
    }
  }
}

/** How many launchers a handle keeps spawned ahead (two, so back-to-back runs both find one ready). */
export const spareLaunchers = 2

/**
 * Keeps launchers of a handle spawned ahead, so that a run takes a process that has already
 * joined its cgroup (on cgroup v1 joining costs a kernel RCU sync, ~15 ms, during which forks
 * wait) and the next ones are prepared after the run, off its path. Spares carry the handle's own
 * binds, its executions folders (`anchors`, from which an area is bound by name where that is
 * safe) and the workspace's protected paths as they were when the spare was made; a run takes a
 * spare only while those are still what exists (else, and with other extra binds, it gets a
 * launcher of its own).
 */
export class WarmLaunchers {
  private readonly spares: { launcher: WarmLauncher; key: string }[] = []
  private readonly joining = new Set<Promise<void>>()
  private closed = false

  constructor(
    private readonly spec: LauncherSpec,
    private readonly cgroups: CgroupSupport | undefined,
    private readonly handleBinds: OpenBind[],
    private readonly anchors: readonly number[] = [],
    private readonly protect?: ProtectedBinds,
    /** The labelled entries every run of this handle hides, as they exist now (the policy's `hiddenPaths`). */
    private readonly hide: () => HiddenEntry[] = () => []
  ) {}

  /** A ready launcher for the handle's binds plus `extra`: a waiting spare when there are no extras and it protects what exists now, else a fresh one. */
  take(extra: OpenBind[] = []): WarmLauncher {
    if (this.closed) throw new ProviderError('runner_released', 'this sandbox was released')
    if (extra.length === 0) {
      const key = this.key(this.hide())
      for (let spare = this.spares.shift(); spare; spare = this.spares.shift()) {
        const alive = spare.launcher.child.exitCode === null && spare.launcher.child.signalCode === null
        if (alive && spare.key === key) return spare.launcher
        void spare.launcher.discard()
      }
    }
    return this.withProtected((binds, hidden) => spawnLauncher(this.spec, this.cgroups, [...this.handleBinds, ...binds, ...extra], this.anchors, hidden)).value
  }

  /**
   * Tops the spares up once a run is over; each joins its cgroup in the background and becomes a
   * spare only once it is in (one that cannot join is ended; `take` then spawns a fresh one).
   */
  replenish(): void {
    while (!this.closed && this.spares.length + this.joining.size < spareLaunchers) {
      const { value: started, key } = this.withProtected((binds, hidden) =>
        spawnLauncherInBackground(this.spec, this.cgroups, [...this.handleBinds, ...binds], this.anchors, hidden)
      )
      const joining: Promise<void> = started
        .then(
          (launcher) => (this.closed ? launcher.discard() : void this.spares.push({ launcher, key })),
          () => undefined
        )
        .finally(() => this.joining.delete(joining))
      this.joining.add(joining)
    }
  }

  /** Ends the spares, those still joining too; no more launchers. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.joining])
    await Promise.all(this.spares.splice(0).map((spare) => spare.launcher.discard()))
  }

  /** What each protected path is now, for `quarantineChanged` once the run that starts now is over. */
  watchProtected(): ProtectedWatch[] {
    return this.protect?.watch() ?? []
  }

  /** What a launcher made now protects and hides: one made for another key is not used for a run. */
  private key(hidden: readonly HiddenEntry[]): string {
    return `${this.protect?.key() ?? ''}\n--\n${entriesKey(hidden)}`
  }

  /**
   * Spawns with the protected binds and hidden entries as they are now, and closes the binds once
   * the launcher holds its copies (spawning is synchronous). Spares are made while a run goes, so
   * the sandbox may be changing its protected paths meanwhile: the key is read again after the
   * binds are opened, and a launcher whose binds may not match its key gets a key no run has
   * (it is never taken; `take` discards it). Whatever a spare binds is read-only over the path and
   * hides the real entry from the sandbox, so even a swap back and forth between the two reads
   * shows it only what it made, never lets it write what the host reads.
   */
  private withProtected<T>(spawn: (binds: OpenBind[], hidden: HiddenEntry[]) => T): { value: T; key: string } {
    const hidden = this.hide()
    const key = this.key(hidden)
    const binds = this.protect?.open() ?? []
    try {
      const value = spawn(binds, hidden)
      return { value, key: this.key(hidden) === key ? key : `changed while opened: ${key}` }
    } finally {
      for (const bind of binds) closeSync(bind.fd)
    }
  }
}

/** What a finished run's launcher says: the CPU budget, the cgroup's verdict, or the CPU rlimit (SIGXCPU, exit 152). */
export async function limitVerdict(launcher: WarmLauncher, exitCode: number): Promise<CommandResult['limitHit']> {
  const cgroupVerdict = await launcher.cgroup?.finish()
  if (launcher.cpuExceeded) return 'cpu'
  return cgroupVerdict ?? (exitCode === 128 + 24 ? 'cpu' : undefined)
}
