import { randomUUID } from 'node:crypto'
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { rmdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The limits a run asks for (bytes and counts). */
export type CgroupLimits = { pids?: number; memoryBytes?: number }

/** One run's cgroup: where its first process is placed, its CPU use, and the sweep afterwards. */
export type RunCgroup = {
  procsFiles: string[]
  /** Places a process (and so everything it forks later) in the cgroup; throws if the kernel refuses. */
  join(pid: number): void
  /**
   * The same, off the event loop: on cgroup v1 a join waits in the kernel for an RCU grace period
   * (milliseconds per controller), which `join` spends blocking every other call of the host.
   */
  joinInBackground(pid: number): Promise<void>
  /** CPU seconds used so far by every process of the run together, where the host accounts it. */
  cpuSeconds(): number | undefined
  /** Kills whatever is left, removes the cgroup, and says which limit was hit, if one was. */
  finish(): Promise<'pids' | 'memory' | undefined>
}

/** What this host lets Airlock enforce through cgroups, and how. */
export type CgroupSupport = {
  pids: boolean
  memory: boolean
  /** Whether a run's CPU time is accounted across all its processes (a per-run CPU budget). */
  cpu: boolean
  /** e.g. `cgroup v1 (/sys/fs/cgroup/pids, /sys/fs/cgroup/memory)` or why nothing is enforced. */
  description: string
  create(limits: CgroupLimits): RunCgroup | undefined
}

/**
 * Detects what the host offers for per-run limits. cgroup v1 (pids and memory hierarchies
 * writable, e.g. as root on this CI machine) or a writable cgroup v2 subtree with the pids/memory
 * controllers delegated. Anything else is reported as not enforced; rlimits cannot stop a fork
 * bomb run as root, so the probe must say so rather than pretend.
 */
export function detectCgroupSupport(root = '/sys/fs/cgroup'): CgroupSupport {
  const v1 = { pids: join(root, 'pids'), memory: join(root, 'memory'), cpu: join(root, 'cpuacct') }
  if (existsSync(join(v1.pids, 'cgroup.procs')) || existsSync(join(v1.memory, 'cgroup.procs'))) {
    const pids = prepareParent(join(v1.pids, 'airlock'))
    const memory = prepareParent(join(v1.memory, 'airlock'))
    const cpu = existsSync(join(v1.cpu, 'cpuacct.usage')) && prepareParent(join(v1.cpu, 'airlock'))
    return {
      pids,
      memory,
      cpu,
      description: `cgroup v1 (${[pids && 'pids', memory && 'memory', cpu && 'cpuacct'].filter(Boolean).join(', ') || 'not writable'})`,
      create: (limits) =>
        createV1(
          {
            pids: pids ? join(v1.pids, 'airlock') : undefined,
            memory: memory ? join(v1.memory, 'airlock') : undefined,
            cpu: cpu ? join(v1.cpu, 'airlock') : undefined
          },
          limits
        )
    }
  }
  if (existsSync(join(root, 'cgroup.controllers'))) return detectV2(root)
  return { pids: false, memory: false, cpu: false, description: 'no cgroup filesystem', create: () => undefined }
}

function detectV2(root: string): CgroupSupport {
  const own = /^0::(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1]
  const parent = own ? join(root, own) : root
  const probe = join(parent, `airlock-probe-${process.pid}`)
  try {
    mkdirSync(probe)
    const controllers = readFileSync(join(probe, 'cgroup.controllers'), 'utf8').split(/\s+/)
    rmdirSync(probe)
    const pids = controllers.includes('pids')
    const memory = controllers.includes('memory')
    return {
      pids,
      memory,
      // cpu.stat (usage_usec) exists in every v2 cgroup, whatever controllers are delegated.
      cpu: true,
      description: pids || memory ? `cgroup v2 (${parent})` : `cgroup v2 without delegated pids/memory controllers at ${parent}`,
      create: (limits) => createV2(parent, { pids, memory }, limits)
    }
  } catch {
    return { pids: false, memory: false, cpu: false, description: `cgroup v2, but ${parent} is not writable (no delegated subtree)`, create: () => undefined }
  }
}

/**
 * True when this process can make per-run cgroups under `dir` (creating it if needed). A parent
 * another user made (root, on an earlier run) may exist without being ours to write: it must be
 * writable, or the probe would claim limits no run gets.
 */
function prepareParent(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
    return existsSync(join(dir, 'cgroup.procs'))
  } catch {
    return false
  }
}

function createV1(parents: { pids?: string; memory?: string; cpu?: string }, limits: CgroupLimits): RunCgroup | undefined {
  const { pids: pidsParent, memory: memoryParent, cpu: cpuParent } = parents
  const id = randomUUID()
  const dirs: { dir: string; kind: 'pids' | 'memory' | 'cpu' }[] = []
  try {
    if (cpuParent) {
      const dir = join(cpuParent, id)
      mkdirSync(dir)
      dirs.push({ dir, kind: 'cpu' })
    }
    if (pidsParent && limits.pids) {
      const dir = join(pidsParent, id)
      mkdirSync(dir)
      dirs.push({ dir, kind: 'pids' })
      writeFileSync(join(dir, 'pids.max'), String(limits.pids))
    }
    if (memoryParent && limits.memoryBytes) {
      const dir = join(memoryParent, id)
      mkdirSync(dir)
      dirs.push({ dir, kind: 'memory' })
      writeFileSync(join(dir, 'memory.limit_in_bytes'), String(limits.memoryBytes))
      tryWrite(join(dir, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes))
    }
  } catch {
    sweep(dirs.map((d) => d.dir))
    return undefined
  }
  if (dirs.length === 0) return undefined
  const procsFiles = dirs.map((d) => join(d.dir, 'cgroup.procs'))
  const cpuDir = dirs.find((d) => d.kind === 'cpu')?.dir
  return {
    procsFiles,
    join: (pid) => joinAll(procsFiles, pid),
    joinInBackground: (pid) => joinAllInBackground(procsFiles, pid),
    cpuSeconds: () => (cpuDir ? Number(tryRead(join(cpuDir, 'cpuacct.usage')) || 0) / 1e9 : undefined),
    async finish() {
      let hit: 'pids' | 'memory' | undefined
      for (const { dir, kind } of dirs) {
        if (kind === 'pids' && (/max (\d+)/.exec(tryRead(join(dir, 'pids.events')))?.[1] ?? '0') !== '0') hit ??= 'pids'
        if (kind === 'memory' && (/oom_kill (\d+)/.exec(tryRead(join(dir, 'memory.oom_control')))?.[1] ?? '0') !== '0') hit = 'memory'
      }
      await sweep(dirs.map((d) => d.dir))
      return hit
    }
  }
}

function createV2(parent: string, available: { pids: boolean; memory: boolean }, limits: CgroupLimits): RunCgroup | undefined {
  const dir = join(parent, `airlock-${randomUUID()}`)
  try {
    mkdirSync(dir)
    if (available.pids && limits.pids) writeFileSync(join(dir, 'pids.max'), String(limits.pids))
    if (available.memory && limits.memoryBytes) {
      writeFileSync(join(dir, 'memory.max'), String(limits.memoryBytes))
      tryWrite(join(dir, 'memory.swap.max'), '0')
    }
  } catch {
    void sweep([dir])
    return undefined
  }
  const procsFiles = [join(dir, 'cgroup.procs')]
  return {
    procsFiles,
    join: (pid) => joinAll(procsFiles, pid),
    joinInBackground: (pid) => joinAllInBackground(procsFiles, pid),
    cpuSeconds: () => Number(/usage_usec (\d+)/.exec(tryRead(join(dir, 'cpu.stat')))?.[1] ?? 0) / 1e6,
    async finish() {
      const memoryEvents = tryRead(join(dir, 'memory.events'))
      const pidEvents = tryRead(join(dir, 'pids.events'))
      const hit = (/oom_kill (\d+)/.exec(memoryEvents)?.[1] ?? '0') !== '0' ? 'memory' : (/max (\d+)/.exec(pidEvents)?.[1] ?? '0') !== '0' ? 'pids' : undefined
      await sweep([dir])
      return hit
    }
  }
}

/** Writes a pid into every cgroup of the run; a refusal is an error (the run must not go unlimited). */
function joinAll(procsFiles: string[], pid: number): void {
  for (const file of procsFiles) writeFileSync(file, String(pid))
}

/** `joinAll` in the thread pool, one file after the other. */
async function joinAllInBackground(procsFiles: string[], pid: number): Promise<void> {
  for (const file of procsFiles) await writeFile(file, String(pid))
}

/** Kills every process left in the cgroups and removes them. */
async function sweep(dirs: string[]): Promise<void> {
  for (const dir of dirs) {
    // Exiting processes linger in cgroup.procs for a moment (measured after sandboxed runs here:
    // median 0.15 ms, 90 % under 1 ms): look again on each turn of the event loop for the first
    // 2 ms, then back off to 20 ms. A timer's 1 ms minimum cost every call ~4 ms before its result.
    const started = performance.now()
    for (let attempt = 0; attempt < 80; ) {
      const pids = tryRead(join(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number)
      if (pids.length === 0) break
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // already gone
        }
      }
      if (performance.now() - started < 2) await new Promise((resolve) => setImmediate(resolve))
      else await new Promise((resolve) => setTimeout(resolve, Math.min(20, 1 + attempt++ * 2)))
    }
    // Removed in the thread pool, not awaited: on cgroup v1 an rmdir waits for the kernel (~3 ms
    // here), and the run's result need not. A zombie may hold it briefly; the parent directory is
    // reused, so a leftover is harmless (and a crash's leftovers are swept from the run ledger).
    void rmdir(dir).catch(() => undefined)
  }
}

function tryRead(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

function tryWrite(path: string, value: string): void {
  try {
    writeFileSync(path, value)
  } catch {
    // optional knob (e.g. swap accounting off)
  }
}
