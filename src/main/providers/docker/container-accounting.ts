import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type Docker from 'dockerode'

/**
 * What the runner needs to know about a container between and during runs: CPU time used by all
 * its processes together (the per-run CPU budget) and which processes of the run user are still
 * alive (nothing outlives its call).
 */
export interface ContainerAccounting {
  /** How: `cgroup files` (a local engine, cheap) or `engine API` (a remote one). */
  readonly source: 'cgroup files' | 'engine API'
  /** Nanoseconds of CPU the container's cgroup has used, or undefined if the host does not say. */
  cpuNanos(): Promise<number | undefined>
  /** Host pids of live (non-zombie) processes running as `uid` in the container. */
  processesOf(uid: number): Promise<number[]>
  /**
   * How often, so far, the container's memory limit killed a process and its pids limit refused a
   * fork (cumulative: a run compares before and after); undefined where the host does not say.
   */
  limitEvents(): Promise<LimitEvents | undefined>
}

/** Counters of the container's cgroup: OOM kills and refused forks. */
export type LimitEvents = { oomKills: number; forksRefused: number }

/** Which limit a run hit, from the counters before and after it (memory first: an OOM kill also ends forks). */
export function limitHitBetween(before: LimitEvents | undefined, after: LimitEvents | undefined): 'memory' | 'pids' | undefined {
  if (!before || !after) return undefined
  if (after.oomKills > before.oomKills) return 'memory'
  if (after.forksRefused > before.forksRefused) return 'pids'
  return undefined
}

/**
 * Reads the container's cgroup from this host's files when the engine is local, else asks the
 * engine (a remote engine's pid names a process of another machine: never looked up here).
 */
export async function accountingFor(container: Docker.Container, where: { local: boolean }): Promise<ContainerAccounting> {
  if (!where.local) return apiAccounting(container)
  const pid = (await container.inspect()).State.Pid
  return (pid > 0 && localAccounting(pid)) || apiAccounting(container)
}

/** cgroup v1 (cpuacct + a procs list) or v2 (cpu.stat + cgroup.procs) of the process `pid`, found from /proc. */
function localAccounting(pid: number): ContainerAccounting | undefined {
  let membership: string
  try {
    membership = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
  } catch {
    return undefined
  }
  const mounts = cgroupMounts()
  let cpuFile: { path: string; unified: boolean } | undefined
  let procsFile: string | undefined
  // memory.oom_control (v1) or memory.events (v2): `oom_kill N`; pids.events: `max N`.
  let oomFile: string | undefined
  let pidsEventsFile: string | undefined
  for (const line of membership.split('\n')) {
    const [, controllers, path] = /^\d+:([^:]*):(.*)$/.exec(line) ?? []
    if (path === undefined) continue
    if (controllers === '' && mounts.unified) {
      cpuFile ??= { path: join(mounts.unified, path, 'cpu.stat'), unified: true }
      procsFile ??= join(mounts.unified, path, 'cgroup.procs')
      oomFile ??= join(mounts.unified, path, 'memory.events')
      pidsEventsFile ??= join(mounts.unified, path, 'pids.events')
      continue
    }
    for (const controller of controllers!.split(',')) {
      const mount = mounts.v1.get(controller)
      if (!mount) continue
      if (controller === 'cpuacct') cpuFile = { path: join(mount, path, 'cpuacct.usage'), unified: false }
      if (controller === 'pids' || controller === 'cpuacct') procsFile ??= join(mount, path, 'cgroup.procs')
      if (controller === 'memory') oomFile = join(mount, path, 'memory.oom_control')
      if (controller === 'pids') pidsEventsFile = join(mount, path, 'pids.events')
    }
  }
  if (!cpuFile || !procsFile || !existsSync(cpuFile.path) || !existsSync(procsFile)) return undefined
  const { path: cpuPath, unified } = cpuFile
  const procs = procsFile
  const counter = (file: string | undefined, name: string) => {
    if (!file || !existsSync(file)) return undefined
    const value = new RegExp(`^${name} (\\d+)$`, 'm').exec(readFileSync(file, 'utf8'))?.[1]
    return value === undefined ? undefined : Number(value)
  }
  return {
    source: 'cgroup files',
    cpuNanos: async () => {
      const text = readFileSync(cpuPath, 'utf8')
      return unified ? Number(/usage_usec (\d+)/.exec(text)?.[1] ?? NaN) * 1000 : Number(text.trim())
    },
    processesOf: async (uid) =>
      readFileSync(procs, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number)
        .filter((process) => liveProcessOf(process, uid)),
    limitEvents: async () => {
      const oomKills = counter(oomFile, 'oom_kill')
      const forksRefused = counter(pidsEventsFile, 'max')
      return oomKills === undefined && forksRefused === undefined ? undefined : { oomKills: oomKills ?? 0, forksRefused: forksRefused ?? 0 }
    }
  }
}

/** True when /proc says `pid` runs as `uid` (real or effective) and is not a zombie. */
function liveProcessOf(pid: number, uid: number): boolean {
  let status: string
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return false
  }
  const uids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status)
  const state = /^State:\s+(\S)/m.exec(status)?.[1]
  return state !== 'Z' && state !== 'X' && (Number(uids?.[1]) === uid || Number(uids?.[2]) === uid)
}

/** Where this host mounts each cgroup v1 controller, and the v2 hierarchy (mounts whose root is `/` only). */
function cgroupMounts(): { v1: Map<string, string>; unified?: string } {
  const v1 = new Map<string, string>()
  let unified: string | undefined
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [mountPart, fsPart] = line.split(' - ')
    if (!mountPart || !fsPart) continue
    const fields = mountPart.split(' ')
    const [fsType, , superOptions] = fsPart.split(' ')
    if (fields[3] !== '/') continue
    if (fsType === 'cgroup2') unified ??= fields[4]
    if (fsType === 'cgroup') for (const option of superOptions?.split(',') ?? []) if (!v1.has(option)) v1.set(option, fields[4]!)
  }
  return { v1, unified }
}

/** The engine's own view (a remote engine): one-shot stats and `top`. Slower, but the same facts. */
function apiAccounting(container: Docker.Container): ContainerAccounting {
  return {
    source: 'engine API',
    cpuNanos: async () => {
      const stats = await container.stats({ stream: false, 'one-shot': true })
      return stats.cpu_stats?.cpu_usage?.total_usage
    },
    processesOf: async (uid) => {
      const top = (await container.top({ ps_args: '-eo uid,pid,stat' })) as { Titles: string[]; Processes: string[][] }
      const [uidAt, pidAt, statAt] = ['UID', 'PID', 'STAT'].map((title) => top.Titles.indexOf(title))
      return top.Processes.filter((row) => Number(row[uidAt!]) === uid && !row[statAt!]?.startsWith('Z')).map((row) => Number(row[pidAt!]))
    },
    // The engine's stats say neither (memory failcnt counts reclaim, not kills): the run ends by its exit status alone.
    limitEvents: async () => undefined
  }
}
