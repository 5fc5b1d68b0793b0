import type { ChildProcess } from 'node:child_process'
import { bubblewrapIsolation } from './sandbox-isolation'
import { dirname } from 'node:path'
import type { IsolationFacts } from '../../core'
import { detectCgroupSupport, type CgroupSupport } from '../runner/cgroup-limits'
import { cached } from '../provider-helpers'
import type { RunLedger } from '../runner/run-ledger'
import { checkBubblewrapHost, launcherSpec, type BubblewrapHost } from './bubblewrap-probe'
import type { OpenBind } from './sandbox-binds'
import { spawnLauncher, type WarmLauncher } from './warm-sandbox'

const mib = 1024 * 1024

/**
 * Without a memory cgroup the only backstop is RLIMIT_AS, which counts address space, not memory:
 * a runtime reserves far more than it uses (V8's code range, a 64 MiB malloc arena per thread), and
 * node ran out of address space at 1 GiB here while using 15 MiB. A long-lived server gets this
 * many times its memory limit as address space; the probe says memory is then not really limited.
 */
const addressSpaceFactor = 4

/** How long a stopped process may take to leave on its own (stdin closed) before it is killed. */
const exitGraceMs = 1000

/** The most of a sandboxed process's stderr kept for error messages (its last bytes). */
const stderrTailBytes = 4096

/** One long-lived program to run in the sandbox, talking over its stdin and stdout. */
export type StdioSandboxRun = {
  /** The program (its path already resolved on the host, and visible inside) and its arguments. */
  argv: string[]
  /** Directories bound from descriptors the caller opened without following links; the caller keeps (and closes) them. */
  binds: OpenBind[]
  cwd: string
  /** The program's whole environment (bwrap starts from an empty one). */
  env: Record<string, string>
  network: 'none' | 'full'
  /** Host folders the sandbox also sees read-only (beyond the system directories): the egress bridge's node. */
  readOnly?: string[]
  /** Limits over the program's whole life: CPU seconds of all its processes together, memory, processes. */
  limits: { cpuSeconds: number; memoryMb: number; pids: number }
}

/** A program running in a sandbox: its stdio, the launcher's host pid, and how to end it. */
export type SandboxedStdioProcess = {
  child: ChildProcess
  /** The host pid of the launcher (bwrap, once it runs): ending its group ends the sandbox. */
  pid: number | undefined
  /** The last bytes the program wrote to stderr (for a failure's message; may hold anything it printed). */
  stderrTail(): string
  /** Closes its stdin, waits a moment for it to leave, then kills what is left and removes its cgroup. */
  stop(): Promise<void>
}

/**
 * A bubblewrap sandbox for one long-lived stdio program (an upstream MCP server): the same
 * launch as a bubblewrap run — the sandbox identity (never root), a per-run cgroup (pids, memory,
 * CPU budget) joined before anything runs, CPU/address-space rlimits, every descriptor but stdio
 * closed, all namespaces (net unless the run's network is `full`), the seccomp filter, all
 * capabilities dropped, `--die-with-parent` — with its stdin and stdout left open as the channel.
 */
export class StdioSandbox {
  private constructor(
    private readonly host: Extract<BubblewrapHost, { ok: true }>,
    private readonly cgroups: CgroupSupport
  ) {}

  private static readonly detections = new Map<string, () => Promise<StdioSandbox | { reason: string }>>()

  /** The sandbox where bubblewrap works here (bwrap at `bwrapPath`, else from the system directories), else why not. */
  static detect(bwrapPath?: string): Promise<StdioSandbox | { reason: string }> {
    const key = bwrapPath ?? ''
    let load = StdioSandbox.detections.get(key)
    if (!load) {
      load = cached(60_000, async () => {
        const cgroups = detectCgroupSupport()
        const host = await checkBubblewrapHost(bwrapPath, cgroups)
        return host.ok ? new StdioSandbox(host, cgroups) : { reason: host.reason }
      })
      StdioSandbox.detections.set(key, load)
    }
    return load()
  }

  /** bwrap's version here. */
  get bwrapVersion(): string {
    return this.host.version
  }

  /** The host uid/gid sandboxed programs run as. */
  get identity(): { uid: number; gid: number; dedicated: boolean } {
    return this.host.identity
  }

  /** What a program in this sandbox is isolated by. */
  isolation(network: 'none' | 'proxy' | 'full'): IsolationFacts {
    return bubblewrapIsolation(network)
  }

  /** Which limits this host enforces for a sandboxed program, for probes. */
  limitFacts(): Record<string, string> {
    return {
      cpuSeconds: this.cgroups.cpu ? 'cgroup (whole life, all processes)' : 'rlimit (per process only)',
      pids: this.cgroups.pids ? 'cgroup' : 'not enforced',
      memory: this.cgroups.memory ? 'cgroup' : `not enforced (only an address-space rlimit of ${addressSpaceFactor}× the limit)`
    }
  }

  /** Starts `run` in a fresh sandbox; `ledger` records its process group and cgroup so a crash leaves neither behind. */
  start(run: StdioSandboxRun, recording?: { ledger: RunLedger; providerId: string }): SandboxedStdioProcess {
    const memoryBytes = Math.round(run.limits.memoryMb * mib)
    const spec = launcherSpec(this.host, {
      pids: run.limits.pids,
      memoryBytes,
      cpuBudgetSeconds: this.cgroups.cpu ? run.limits.cpuSeconds : undefined,
      limits: { cpuSeconds: run.limits.cpuSeconds, addressSpaceBytes: this.cgroups.memory ? undefined : memoryBytes * addressSpaceFactor }
    })
    const launcher = spawnLauncher(spec, this.cgroups, run.binds)
    const child = launcher.child
    const untrack =
      child.pid !== undefined
        ? recording?.ledger.record(
            recording.providerId,
            child.pid,
            launcher.cgroup?.procsFiles.map((file) => dirname(file))
          )
        : undefined
    let tail = Buffer.alloc(0)
    child.stderr!.on('data', (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk])
      if (tail.length > stderrTailBytes) tail = tail.subarray(tail.length - stderrTailBytes)
    })
    launcher.prepared({ readOnly: run.readOnly ?? [], cwd: run.cwd, network: run.network, env: run.env }, run.argv).begin()
    let stopping: Promise<void> | undefined
    return {
      child,
      pid: child.pid,
      stderrTail: () => tail.toString('utf8'),
      stop: () => (stopping ??= stopLauncher(launcher).finally(() => untrack?.()))
    }
  }
}

/** Ends a launcher: stdin closed (an MCP server leaves on EOF), then its group killed and its cgroup swept. */
async function stopLauncher(launcher: WarmLauncher): Promise<void> {
  const child = launcher.child
  const gone = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) resolve()
    else child.once('exit', () => resolve())
  })
  child.stdin?.end()
  await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, exitGraceMs).unref())])
  // discard kills the group (bwrap; the sandbox dies with it) and empties the cgroup of anything else.
  await launcher.discard()
  await gone
}
