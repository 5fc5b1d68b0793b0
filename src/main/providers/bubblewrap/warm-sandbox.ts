import type { ChildProcess } from 'node:child_process'
import type { CommandResult } from '../../core'
import { feedPipe, spawnGroup, type PreparedProcess } from '../process/bounded-process'
import type { CgroupSupport, RunCgroup } from '../process/cgroup-limits'
import { bwrapArgsFd, encodeProgram, programFd, sandboxArgs, sandboxLauncherArgv, seccompFd, type SandboxLimits, type SandboxPlan } from './sandbox-command'

/** A sandbox launcher spawned ahead of its run, already inside its own cgroup, waiting for bwrap's arguments. */
export type WarmLauncher = {
  child: ChildProcess
  cgroup?: RunCgroup
  /** Starts the run: sends bwrap its options and the program (the child then sets up the sandbox and execs). */
  prepared(plan: SandboxPlan, program: string[]): PreparedProcess
  /** Ends it unused (release). */
  discard(): Promise<void>
}

/** What the launchers of one handle share. */
export type LauncherSpec = { bwrap: string; filter: Buffer; limits: Omit<SandboxLimits, 'cgroupProcs'>; pids?: number; memoryBytes?: number }

/** Spawns one launcher: its cgroup first, then the process that joins it and waits on fd 4. */
export function spawnLauncher(spec: LauncherSpec, cgroups: CgroupSupport | undefined): WarmLauncher {
  const cgroup = cgroups?.create({ pids: spec.pids, memoryBytes: spec.memoryBytes })
  const child = spawnGroup(sandboxLauncherArgv(spec.bwrap, { ...spec.limits, cgroupProcs: cgroup?.procsFiles ?? [] }), {
    cwd: '/',
    env: {},
    stdin: 'pipe',
    extraPipes: 3
  })
  child.on('error', () => undefined)
  feedPipe(child, seccompFd, spec.filter)
  return {
    child,
    cgroup,
    prepared: (plan, program) => {
      const encoded = encodeProgram(program)
      return {
        child,
        begin: () => {
          feedPipe(child, bwrapArgsFd, Buffer.from(`${sandboxArgs(plan).join('\0')}\0`))
          feedPipe(child, programFd, encoded)
        }
      }
    },
    async discard() {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // already gone
      }
      await cgroup?.finish()
    }
  }
}

/** How many launchers a handle keeps spawned ahead (two, so back-to-back runs both find one ready). */
export const spareLaunchers = 2

/**
 * Keeps launchers of a handle spawned ahead, so that a run takes a process that has already
 * joined its cgroup (on cgroup v1 joining costs a kernel RCU sync, ~15 ms, during which forks
 * wait) and the next ones are prepared after the run, off its path.
 */
export class WarmLaunchers {
  private readonly spares: WarmLauncher[] = []
  private closed = false

  constructor(
    private readonly spec: LauncherSpec,
    private readonly cgroups: CgroupSupport | undefined
  ) {}

  /** A ready launcher: a spare that is still waiting, else a fresh one. */
  take(): WarmLauncher {
    if (this.closed) throw new Error('this sandbox was released')
    for (let spare = this.spares.shift(); spare; spare = this.spares.shift()) {
      if (spare.child.exitCode === null && spare.child.signalCode === null) return spare
      void spare.discard()
    }
    return spawnLauncher(this.spec, this.cgroups)
  }

  /** Tops the spares up once a run is over. */
  replenish(): void {
    while (!this.closed && this.spares.length < spareLaunchers) this.spares.push(spawnLauncher(this.spec, this.cgroups))
  }

  /** Ends the spares; no more launchers. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all(this.spares.splice(0).map((spare) => spare.discard()))
  }
}

/** What a finished run's launcher says: the cgroup's verdict, or the CPU rlimit (SIGXCPU, exit 152). */
export async function limitVerdict(launcher: WarmLauncher, exitCode: number): Promise<CommandResult['limitHit']> {
  return (await launcher.cgroup?.finish()) ?? (exitCode === 128 + 24 ? 'cpu' : undefined)
}
