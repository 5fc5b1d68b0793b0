import { closeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { z } from 'zod'
import { protectedPathsWith } from '@shared/protected-paths'
import type { IsolationFacts } from '@shared/resources'
import { hiddenEntries, quarantineChanged, type HiddenEntry } from '../../core/sandbox/workspace-entries'
import {
  assertReachableBySandbox,
  assertWritableBySandbox,
  ExecutionResourceError,
  isExecutionsFolder,
  sandboxReachProblem,
  type ExecutionResourceProvider,
  type NetworkMode,
  type ProviderProbe
} from '../../core'
import { realRoots } from '../../core/sandbox/workspace-paths'
import { cached, invalidConfig } from '../provider-helpers'
import { detectCgroupSupport, type CgroupSupport } from '../runner/cgroup-limits'
import { LocalProgramRunner } from '../runner/local-program-runner'
import { LocalRunnerProvider } from '../runner/runner-lifecycle'
import type { RunLedger } from '../runner/run-ledger'
import { systemPath } from '../runner/run-limits'
import { languagesOf, observeToolchains, type ToolchainFact } from '../runner/toolchains'
import { openHandleRoots, openRunBinds, type OpenBind } from '../bubblewrap/sandbox-binds'
import { ProtectedBinds } from '../bubblewrap/protected-binds'
import { gvisorSeccomp } from './gvisor-seccomp'
import { checkGvisorHost, runGvisorOnce, sweepSandboxes, type GvisorHost } from './gvisor-host'
import { bootSpare, prepareGvisorRun, sandboxHostTasks, sandboxKernelBytes, spareServes } from './gvisor-run'
import { GvisorSpares } from './gvisor-spares'

/** gvisor's own config keys (other providers' keys in a shared config pass through). */
const gvisorConfigSchema = z.looseObject({
  runscPath: z.string().startsWith('/', 'must be an absolute path').optional(),
  readOnlyBinds: z.array(z.string().startsWith('/', 'must be absolute paths')).max(32).optional()
})

/** Defaults for limits the policy does not set (SPEC §6.1 agent defaults). */
const defaultLimits = { cpuSeconds: 60, memoryMb: 1024, pids: 256 }
const mib = 1024 * 1024

/** What a gVisor sandbox enforces: all four axes behind a kernel of its own, with the network it was given. */
export function gvisorIsolation(networkMode: IsolationFacts['networkMode']): IsolationFacts {
  return {
    processContained: true,
    hostFilesystemRestricted: true,
    privilegeEscalationBlocked: true,
    syscallsRestricted: true,
    mechanism: 'gvisor',
    networkMode,
    kernel: 'separate'
  }
}

type HostFacts = { host: GvisorHost; toolchains: Record<string, ToolchainFact> }

/**
 * `gvisor`: code runs under runsc (gVisor), a user-space kernel between the program and the host:
 * the program's system calls are served by gVisor's Sentry, never by the host kernel, so a host
 * kernel bug is one layer further away than with bubblewrap or runc. Every run is a fresh sandbox
 * made for that run (`gvisor-run.ts`): nothing survives between calls but the workspace (no
 * processes, no /tmp, no kernel state). Warm: a handle keeps one sandbox booted ahead
 * (`gvisor-spares.ts`), which a run without extra binds takes and uses once. The view is bubblewrap's: system directories read-only,
 * the workspace (and a run's execution area) the only writable host paths, protected paths
 * read-only, labelled entries hidden, no network (or the host's for `full`; `proxy` is not
 * carried yet, so such a policy falls through to the next provider). Limits: a host cgroup per
 * run (pids, memory, CPU seconds) around the sandbox's kernel and its processes, RLIMIT_NPROC
 * inside it, time and output by the carrier; the program runs as the dedicated sandbox uid.
 *
 * Integration decision: runsc directly, with an OCI bundle per run, not Docker's `--runtime=runsc`:
 * it works wherever runsc alone is installed, keeps the same bind and uid rules as bubblewrap, and
 * does not depend on how an engine was configured.
 */
export class GvisorProvider extends LocalRunnerProvider implements ExecutionResourceProvider {
  readonly providerId = 'gvisor'
  readonly supportedKinds = ['code_execution', 'bash'] as const
  private readonly facts = new Map<string, () => Promise<HostFacts>>()
  private cgroupSupport?: CgroupSupport

  /** `home`: where runsc's state and the runs' bundles live (`<home>/gvisor`, root's, 0700). */
  constructor(private readonly options: { home?: string; runLedger?: RunLedger } = {}) {
    super(options.runLedger)
  }

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = gvisorConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('gvisor', config.error)
    const { host, toolchains } = await this.hostFacts(config.data.runscPath)
    if (!host.ok) return { available: false, reason: host.reason }
    if (!policy.workspaceRoots?.length) return { available: false, reason: 'the sandbox needs policy.workspaceRoots (the directories it may write)' }
    const unreachable = policy.workspaceRoots.map((root) => sandboxReachProblem(root, { ...host.identity, dedicated: true })).find(Boolean)
    if (unreachable) return { available: false, reason: unreachable }
    if (policy.networkMode === 'proxy')
      return { available: false, reason: 'gvisor does not carry the egress proxy yet (network "proxy"); bubblewrap and docker do' }
    const cgroups = this.cgroups()
    return {
      available: true,
      capabilities: {
        isolation: gvisorIsolation(policy.networkMode ?? 'none'),
        toolchains,
        languages: languagesOf(toolchains),
        limits: {
          cpuSeconds: cgroups.cpu ? 'cgroup (per run, the sandbox kernel included)' : 'not enforced (this runsc ignores RLIMIT_CPU)',
          pids: `RLIMIT_NPROC in the sandbox kernel${cgroups.pids ? ' + host cgroup' : ''}`,
          memory: cgroups.memory ? 'cgroup (per run, the sandbox kernel included)' : 'not enforced'
        },
        sandboxUid: host.identity.uid,
        runscVersion: host.version,
        protectedPaths: 'read-only (mounted over themselves)',
        hidesPaths: true
      },
      diagnostics: [
        `runsc ${host.version} at ${host.programs.runsc}: a fresh sandbox with its own kernel per run`,
        `protected paths (${protectedPathsWith(policy.protectedPaths ?? []).join(', ')}) are mounted read-only in a workspace sandbox`,
        `limits via ${cgroups.description}`,
        `sandboxed code runs as uid ${host.identity.uid} (its files in the workspace are owned by it)`,
        ...host.quirks
      ]
    }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = gvisorConfigSchema.parse(requirement.config ?? {})
    const { host } = await this.hostFacts(config.runscPath)
    if (!host.ok) throw new ExecutionResourceError('provider_unavailable', host.reason, { providerId: this.providerId })
    if (policy.networkMode === 'proxy')
      throw new ExecutionResourceError('invalid_requirement', 'gvisor does not carry the egress proxy yet', { providerId: this.providerId })
    const identity = { ...host.identity, dedicated: true }
    const roots = realRoots(policy.workspaceRoots)
    const readOnly = config.readOnlyBinds ? realRoots(config.readOnlyBinds) : []
    for (const root of roots) assertReachableBySandbox(root, identity)
    const handleBinds = openHandleRoots(roots.filter((root) => !isExecutionsFolder(root)))
    try {
      for (const bind of handleBinds) assertWritableBySandbox(bind.fd, bind.dest, identity)
    } catch (error) {
      for (const bind of handleBinds) closeSync(bind.fd)
      throw error
    }
    const limits = { ...defaultLimits, ...policy.limits }
    const cgroups = this.cgroups()
    const workspaces = handleBinds.filter((bind) => bind.masksAirlock)
    const protect = workspaces.length > 0 ? new ProtectedBinds(workspaces, policy.protectedPaths, policy.hiddenPaths) : undefined
    const network: NetworkMode = policy.networkMode === 'full' ? 'full' : 'none'
    const spec = {
      programs: host.programs,
      places: host.places,
      pids: sandboxHostTasks(limits.pids),
      memoryBytes: Math.round(limits.memoryMb * mib) + sandboxKernelBytes,
      cpuBudgetSeconds: cgroups.cpu ? limits.cpuSeconds : undefined,
      cleanups: new Set<Promise<void>>()
    }
    const hide = () => workspaces.flatMap((workspace) => hiddenEntries(workspace.dest, policy.hiddenPaths))
    /** Everything of a run's sandbox but its program: the same for a spare and for a run's own. */
    const sandboxPlan = (binds: OpenBind[], hidden: HiddenEntry[]) => ({
      user: host.identity,
      network,
      binds: [...handleBinds, ...binds],
      readOnly,
      hidden: hidden.map(({ path, directory }) => ({ dest: path, directory })),
      processes: limits.pids,
      cpuSeconds: limits.cpuSeconds,
      seccomp: gvisorSeccomp(host)
    })
    const spares = new GvisorSpares((pinned, hidden) => bootSpare(spec, cgroups, sandboxPlan(pinned, hidden)), protect, hide)
    const runner = new LocalProgramRunner(
      roots,
      policy,
      { PATH: systemPath, HOME: handleBinds[0]?.dest ?? '/tmp', LANG: 'C.UTF-8', TERM: 'dumb', TMPDIR: '/tmp' },
      async ({ argv, cwd, env, writableRoots, readOnlyRoots }) => {
        // Taken with the sandbox: what was not there when this run started must not be left by it.
        const watch = protect?.watch() ?? []
        const spare = writableRoots.length === 0 && readOnlyRoots.length === 0 && spareServes(argv) ? await spares.take() : undefined
        const launch = spare ? spare.use({ argv, cwd, env }) : ownSandbox(argv, cwd, env, writableRoots, readOnlyRoots)
        return {
          prepared: launch.prepared,
          cgroupDirs: launch.cgroup?.procsFiles.map((file) => dirname(file)),
          // Booting the next spare is host work (~10 ms): done while this run's program runs.
          started: () => spares.replenish(),
          finish: (exitCode) => launch.finish(exitCode),
          settle: () => quarantineChanged(watch)
        }
      },
      this.recording
    )
    /** A sandbox booted for this run alone: its extra binds (an execution area, a grant) or no spare ready. */
    const ownSandbox = (argv: string[], cwd: string, env: Record<string, string>, writableRoots: string[], readOnlyRoots: string[]) => {
      const extra = openRunBinds(roots, writableRoots, readOnlyRoots)
      const pinned = protect?.open() ?? []
      try {
        return prepareGvisorRun(spec, cgroups, { ...sandboxPlan([...pinned, ...extra], hide()), argv, cwd, env })
      } finally {
        // The launcher holds its own copies now (or never started).
        for (const bind of [...pinned, ...extra]) closeSync(bind.fd)
      }
    }
    runner.onClose = async () => {
      await spares.close()
      // runsc's state and the bundles of the last runs, removed just after their results.
      await Promise.all([...spec.cleanups])
      for (const bind of handleBinds) closeSync(bind.fd)
    }
    return { resource: runner, meta: { isolation: gvisorIsolation(network), runscVersion: host.version } }
  }

  /** After a crash: what the run ledger names (launchers, cgroups), then the sandboxes runsc still keeps state for. */
  override async recover(): Promise<string[]> {
    const ended = await super.recover()
    return this.options.home ? [...ended, ...(await sweepSandboxes(this.options.home))] : ended
  }

  private cgroups(): CgroupSupport {
    return (this.cgroupSupport ??= detectCgroupSupport())
  }

  private hostFacts(runscPath: string | undefined): Promise<HostFacts> {
    const key = runscPath ?? ''
    let load = this.facts.get(key)
    if (!load) {
      load = cached(60_000, async () => {
        const home = this.options.home ?? join(tmpdir(), `airlock-gvisor-${process.getuid?.() ?? 'user'}`)
        const host = await checkGvisorHost({ runscPath, home, cgroups: this.cgroups() })
        const toolchains = host.ok ? await observeToolchains((argv) => runGvisorOnce(host, this.cgroups(), argv)) : {}
        return { host, toolchains }
      })
      this.facts.set(key, load)
    }
    return load()
  }
}
