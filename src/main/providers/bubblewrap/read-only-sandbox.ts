import { closeSync } from 'node:fs'
import type { IsolationFacts } from '../../core'
import { detectCgroupSupport, type CgroupSupport } from '../runner/cgroup-limits'
import type { Launch } from '../runner/local-program-runner'
import { cached } from '../provider-helpers'
import { checkBubblewrapHost, launcherSpec, type BubblewrapHost } from './bubblewrap-probe'
import { openHandleRoots } from './sandbox-binds'
import { bubblewrapIsolation } from './sandbox-isolation'
import { limitVerdict, spawnLauncher } from './warm-sandbox'

/** Limits of one read-only inspection command (ls, cat, grep, git log, ...). */
const inspectionLimits = { pids: 64, memoryBytes: 512 * 1024 * 1024, cpuBudgetSeconds: 30, limits: { cpuSeconds: 30 } }

/** What a command in the read-only sandbox is isolated by (the host runner's probe reports it). */
export const readOnlySandboxIsolation: IsolationFacts = bubblewrapIsolation('none')

/**
 * A bubblewrap sandbox in which the workspace is mounted read-only and nothing else of the host
 * is visible but the system: the host runner's second boundary. Its path checks stop what an
 * argument names; this stops what a program then opens — a symlink swapped in after the check, a
 * `..` path a hostile `.git/index` feeds git, another workspace, a world-readable host file.
 */
export class ReadOnlySandbox {
  private constructor(
    private readonly host: Extract<BubblewrapHost, { ok: true }>,
    private readonly cgroups: CgroupSupport
  ) {}

  /** The sandbox where bubblewrap works here, else why not (the host runner then runs on the host and says so). */
  static readonly detect = cached(60_000, async (): Promise<ReadOnlySandbox | { reason: string }> => {
    const cgroups = detectCgroupSupport()
    const host = await checkBubblewrapHost(undefined, cgroups)
    return host.ok ? new ReadOnlySandbox(host, cgroups) : { reason: host.reason }
  })

  /** Launches `argv` with `roots` bound read-only (opened without following links) and `extraPaths` (host-made, e.g. git's private directory). */
  launch(argv: string[], options: { roots: readonly string[]; extraPaths: readonly string[]; cwd: string; env: Record<string, string> }): Launch {
    const binds = openHandleRoots(options.roots).map((bind) => ({ ...bind, writable: false }))
    let launcher
    try {
      launcher = spawnLauncher(launcherSpec(this.host, inspectionLimits), this.cgroups, binds)
    } finally {
      for (const bind of binds) closeSync(bind.fd)
    }
    return {
      prepared: launcher.prepared({ readOnly: [...options.extraPaths], cwd: options.cwd, network: 'none', env: options.env }, argv),
      finish: (exitCode) => limitVerdict(launcher, exitCode)
    }
  }
}
