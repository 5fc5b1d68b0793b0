import { randomUUID } from 'node:crypto'
import { closeSync, fstatSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { z } from 'zod'
import { protectedPathsWith } from '@shared/protected-paths'
import { hiddenEntries, quarantineChanged } from '../../core/sandbox/workspace-entries'
import {
  assertReachableBySandbox,
  sandboxReachProblem,
  isExecutionsFolder,
  assertWritableBySandbox,
  egressEnv,
  ExecutionResourceError,
  openBeneath,
  openDirectoryNoFollow,
  type EgressEndpoint,
  type EgressPort,
  type ExecutionResourceProvider,
  type ProviderProbe,
  type ResourcePolicy,
  type ResourceRequirement
} from '../../core'
import { detectCgroupSupport, type CgroupSupport } from '../runner/cgroup-limits'
import type { RunLedger } from '../runner/run-ledger'
import { LocalRunnerProvider } from '../runner/runner-lifecycle'
import { LocalProgramRunner } from '../runner/local-program-runner'
import { systemPath } from '../runner/run-limits'
import { cached, invalidConfig } from '../provider-helpers'
import { languagesOf, observeToolchains, type ToolchainFact } from '../runner/toolchains'
import { realRoots } from '../../core/sandbox/workspace-paths'
import { checkBubblewrapHost, launcherSpec, runSandboxedOnce, type BubblewrapHost } from './bubblewrap-probe'
import { bridgedArgv, bridgeNode, egressMount, openEgressBind } from '../runner/egress-bridge'
import { openHandleRoots, openRunBinds, type OpenBind } from './sandbox-binds'
import { bubblewrapIsolation } from './sandbox-isolation'
import { ProtectedBinds } from './protected-binds'
import { limitVerdict, WarmLaunchers } from './warm-sandbox'

/** bubblewrap's own config keys (other providers' keys in a shared config pass through). */
const bubblewrapConfigSchema = z.looseObject({
  bwrapPath: z.string().startsWith('/', 'must be an absolute path').optional(),
  readOnlyBinds: z.array(z.string().startsWith('/', 'must be absolute paths')).max(32).optional()
})

/** Defaults for limits the policy does not set (SPEC §6.1 agent defaults). */
const defaultLimits = { cpuSeconds: 60, memoryMb: 1024, pids: 256 }
const mib = 1024 * 1024

type HostFacts = { host: BubblewrapHost; toolchains: Record<string, ToolchainFact> }

/**
 * `bubblewrap`: the sandboxed runner (SPEC §4) for `code_execution` and `bash`. Every run is a
 * fresh bwrap sandbox (namespaces, read-only system, only the workspace and the run's execution
 * area writable, seccomp filter, no capabilities, no network unless the policy allows it) inside
 * a per-run cgroup where the host offers one (pids, memory) plus a CPU-seconds rlimit.
 * With `network: "proxy"` the sandbox keeps its empty network namespace and gets the handle's
 * egress socket bound read-only, and each program runs behind the bridge to it (`egress-bridge.ts`).
 */
export class BubblewrapProvider extends LocalRunnerProvider implements ExecutionResourceProvider {
  readonly providerId = 'bubblewrap'
  readonly supportedKinds = ['code_execution', 'bash'] as const
  private readonly facts = new Map<string, () => Promise<HostFacts>>()
  private cgroupSupport?: CgroupSupport

  /**
   * `runLedger` records each run's launcher and cgroups, so a crash leaves none behind; `egress`
   * carries `network: "proxy"` (without it such a policy is refused); `nodePath` is the node that
   * runs the in-sandbox bridge (default: this process's, which must be visible in the sandbox).
   */
  constructor(private readonly options: { runLedger?: RunLedger; egress?: EgressPort; nodePath?: string } = {}) {
    super(options.runLedger)
  }

  async probe({ requirement, policy }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = bubblewrapConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('bubblewrap', config.error)
    const { host, toolchains } = await this.hostFacts(config.data.bwrapPath)
    if (!host.ok) return { available: false, reason: host.reason }
    if (!policy.workspaceRoots?.length) return { available: false, reason: 'the sandbox needs policy.workspaceRoots (the directories it may write)' }
    // bwrap resolves its binds as the sandbox uid: a workspace under a home it cannot enter (/root) could never run.
    const unreachable = policy.workspaceRoots.map((root) => sandboxReachProblem(root, host.identity)).find((problem) => problem !== undefined)
    if (unreachable) return { available: false, reason: unreachable }
    if (policy.networkMode === 'proxy' && !this.options.egress)
      return { available: false, reason: 'network "proxy" needs Airlock\'s egress proxy, which this host does not run' }
    const cgroups = this.cgroups()
    return {
      available: true,
      capabilities: {
        isolation: bubblewrapIsolation(policy.networkMode ?? 'none'),
        toolchains,
        languages: languagesOf(toolchains),
        limits: {
          cpuSeconds: cgroups.cpu ? 'cgroup (per run)' : 'rlimit (per process only, not per run)',
          pids: cgroups.pids ? 'cgroup' : 'not enforced',
          memory: cgroups.memory ? 'cgroup' : 'rlimit (address space)'
        },
        sandboxUid: host.identity.uid,
        bwrapVersion: host.version,
        protectedPaths: 'read-only (mounted over themselves)',
        // Labelled entries above what a call may read: an empty read-only folder or file over each.
        hidesPaths: true
      },
      diagnostics: [
        `protected paths (${protectedPathsWith(policy.protectedPaths ?? []).join(', ')}) are mounted read-only in a workspace sandbox`,
        `bwrap ${host.version} at ${host.bwrap}`,
        `limits via ${cgroups.description}`,
        `sandboxed code runs as host uid ${host.identity.uid}${host.identity.dedicated ? ' (Airlock runs as root; sandboxes get their own unprivileged uid)' : ''}`
      ]
    }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = bubblewrapConfigSchema.parse(requirement.config ?? {})
    const { host } = await this.hostFacts(config.bwrapPath)
    if (!host.ok) throw new ExecutionResourceError('bubblewrap_unavailable', host.reason, { providerId: this.providerId })
    const roots = realRoots(policy.workspaceRoots)
    const readOnly = config.readOnlyBinds ? realRoots(config.readOnlyBinds) : []
    for (const root of roots) assertReachableBySandbox(root, host.identity)
    // An executions folder is only an anchor: each run binds its own area, never its neighbours'.
    const handleBinds = openHandleRoots(roots.filter((root) => !isExecutionsFolder(root)))
    try {
      // A workspace root must be the sandbox's to write.
      for (const bind of handleBinds) assertWritableBySandbox(bind.fd, bind.dest, host.identity)
    } catch (error) {
      for (const bind of handleBinds) closeSync(bind.fd)
      throw error
    }
    let egress: EgressEndpoint | undefined
    if (policy.networkMode === 'proxy') {
      try {
        const opened = await this.openEgress(requirement)
        egress = opened.endpoint
        handleBinds.push(opened.bind)
      } catch (error) {
        for (const bind of handleBinds) closeSync(bind.fd)
        throw error
      }
    }
    const anchors = executionAnchors(roots, host.identity.dedicated)
    const launchers = this.launchers(
      host,
      policy,
      handleBinds,
      anchors.map((anchor) => anchor.fd)
    )
    const runner = new LocalProgramRunner(
      roots,
      policy,
      // HOME is the workspace where one is bound; a code run sees only its own area, so /tmp then.
      // (The egress socket's folder is bound too, read-only: never a home.)
      { PATH: systemPath, HOME: handleBinds.find((bind) => bind.dest !== egressMount)?.dest ?? '/tmp', LANG: 'C.UTF-8', TERM: 'dumb', TMPDIR: '/tmp' },
      async ({ argv, cwd, env, writableRoots, readOnlyRoots }) => {
        const areas = readOnlyRoots.length === 0 ? areasOf(anchors, writableRoots) : undefined
        const extra = areas ? [] : openRunBinds(roots, writableRoots, readOnlyRoots)
        let launcher
        // Taken with the launcher: what was not there when this run started must not be left by it.
        const watch = launchers.watchProtected()
        try {
          launcher = launchers.take(extra)
        } finally {
          // The launcher holds its own copies now (or never started).
          for (const bind of extra) closeSync(bind.fd)
        }
        // `proxy` keeps the empty namespace: the bridge to the egress socket is the only way out.
        const network = policy.networkMode === 'full' ? 'full' : 'none'
        // Each run's connections are credited to it by a token its bridge sends (calls of one session may overlap).
        const token = egress ? randomUUID() : undefined
        const node = bridgeNode(this.options.nodePath)
        const program = egress ? bridgedArgv(node.path, egress.socketName, token!, argv) : argv
        const programEnv = egress ? { ...env, ...egressEnv(), ...node.env } : env
        const runReadOnly = egress ? [...readOnly, ...node.readOnly] : readOnly
        return {
          prepared: launcher.prepared(
            {
              readOnly: runReadOnly,
              cwd,
              network,
              env: programEnv,
              areas: areas?.map((area) => ({ fd: launcher.anchorFd(area.anchor), name: area.name, dest: area.dest }))
            },
            program
          ),
          ...(egress ? { egress: egress.track(token!) } : {}),
          cgroupDirs: launcher.cgroup?.procsFiles.map((file) => dirname(file)),
          // Spawning is synchronous work (~5 ms): done while this run's program runs, never between its end and its result.
          started: () => launchers.replenish(),
          finish: async (exitCode) => {
            const verdict = await limitVerdict(launcher, exitCode)
            // Usually a no-op (done while it ran); a run too short for that still leaves spares.
            setImmediate(() => launchers.replenish())
            return verdict
          },
          // The run's processes are gone (its pid namespace ended with it): nothing races the move.
          settle: () => quarantineChanged(watch)
        }
      },
      this.recording
    )
    runner.onClose = async () => {
      await launchers.close()
      await egress?.close()
      for (const bind of handleBinds) closeSync(bind.fd)
      for (const anchor of anchors) closeSync(anchor.fd)
    }
    return {
      resource: runner,
      meta: { isolation: bubblewrapIsolation(policy.networkMode ?? 'none'), bwrapVersion: host.version, ...(egress ? { egress: 'proxy' } : {}) }
    }
  }

  /** The warm launchers of one handle: limits from the policy, per-run cgroups where the host has them. */
  private launchers(host: Extract<BubblewrapHost, { ok: true }>, policy: ResourcePolicy, handleBinds: OpenBind[], anchors: number[]): WarmLaunchers {
    const limits = { ...defaultLimits, ...policy.limits }
    const cgroups = this.cgroups()
    const memoryBytes = Math.round(limits.memoryMb * mib)
    const spec = launcherSpec(host, {
      pids: limits.pids,
      memoryBytes,
      // The rlimit stays as a per-process backstop; the cgroup budget counts every process of the run.
      cpuBudgetSeconds: cgroups.cpu ? limits.cpuSeconds : undefined,
      limits: { cpuSeconds: limits.cpuSeconds, addressSpaceBytes: cgroups.memory ? undefined : memoryBytes }
    })
    // A workspace bound whole (it masks its `.airlock/`) gets its protected paths read-only in every run.
    const workspaces = handleBinds.filter((bind) => bind.masksAirlock)
    // ... and its labelled entries above what the calls on this handle may read hidden in every run.
    const hide = () => workspaces.flatMap((workspace) => hiddenEntries(workspace.dest, policy.hiddenPaths))
    return new WarmLaunchers(
      spec,
      cgroups,
      handleBinds,
      anchors,
      workspaces.length > 0 ? new ProtectedBinds(workspaces, policy.protectedPaths, policy.hiddenPaths) : undefined,
      hide
    )
  }

  /** The handle's egress endpoint and its socket directory, opened for a read-only bind at `egressMount`. */
  private openEgress(requirement: ResourceRequirement): ReturnType<typeof openEgressBind> {
    if (!this.options.egress)
      throw new ExecutionResourceError('invalid_requirement', 'network "proxy" needs Airlock\'s egress proxy, which this host does not run', {
        providerId: this.providerId
      })
    return openEgressBind(this.options.egress, { scope: requirement.scope, ownerId: requirement.ownerId, actionCallId: requirement.actionCallId })
  }

  private cgroups(): CgroupSupport {
    return (this.cgroupSupport ??= detectCgroupSupport())
  }

  private hostFacts(bwrapPath: string | undefined): Promise<HostFacts> {
    const key = bwrapPath ?? ''
    let load = this.facts.get(key)
    if (!load) {
      load = cached(60_000, async () => {
        const host = await checkBubblewrapHost(bwrapPath, this.cgroups())
        const toolchains = host.ok ? await observeToolchains((argv) => runSandboxedOnce(host, this.cgroups(), argv)) : {}
        return { host, toolchains }
      })
      this.facts.set(key, load)
    }
    return load()
  }
}

/** An executions folder a handle's launchers hold open, so a run's area can be bound by name. */
type ExecutionAnchor = { root: string; fd: number }

/**
 * The executions folders of a handle that areas may be bound from by name: only under a dedicated
 * sandbox uid, and only while the folder is root's and writable by no one else — then the
 * sandbox cannot rename, replace or plant an entry there, so `<folder>/<call id>` still names the
 * area the host created when bwrap mounts it. Elsewhere every run opens its area itself.
 */
function executionAnchors(roots: readonly string[], dedicated: boolean): ExecutionAnchor[] {
  if (!dedicated) return []
  const anchors: ExecutionAnchor[] = []
  for (const root of roots.filter(isExecutionsFolder)) {
    const fd = openDirectoryNoFollow(root)
    const stat = fstatSync(fd)
    if (stat.uid === 0 && (stat.mode & 0o022) === 0) anchors.push({ root, fd })
    else closeSync(fd)
  }
  return anchors
}

/**
 * A run's writable roots as areas of the handle's anchors, when every one is a direct child of an
 * anchor (an execution area) that is a real directory now; else undefined (the run binds its own).
 */
function areasOf(anchors: readonly ExecutionAnchor[], writableRoots: readonly string[]): { anchor: number; name: string; dest: string }[] | undefined {
  if (anchors.length === 0 || writableRoots.length === 0) return undefined
  const areas: { anchor: number; name: string; dest: string }[] = []
  for (const root of writableRoots.map((path) => resolve(path))) {
    const anchor = anchors.findIndex((candidate) => dirname(root) === candidate.root)
    if (anchor < 0) return undefined
    try {
      closeSync(openBeneath(anchors[anchor]!.fd, basename(root)))
    } catch {
      return undefined
    }
    areas.push({ anchor, name: basename(root), dest: root })
  }
  return areas
}
