import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'

/** One running process group as recorded on disk: enough to find it again, and only it. */
const runRecordSchema = z
  .object({
    providerId: z.string().min(1),
    pid: z.number().int().positive(),
    /** The leader's start time (clock ticks since boot, /proc/<pid>/stat field 22): a reused pid has another. */
    startTicks: z.string().regex(/^\d+$/),
    /** Per-run cgroup directories to empty and remove. */
    cgroups: z.array(z.string().startsWith('/sys/fs/cgroup/')).default([])
  })
  .strict()

/** What the ledger knows of one run. */
export type RunRecord = z.infer<typeof runRecordSchema>

/**
 * Records the process groups host runs start (`trusted_local`, the `bash` host runner, sandbox
 * launchers), one small file each under the home's `runs/`, removed when the run ends. Those
 * groups are detached from Airlock's own: after a crash (kill -9) they keep running. At the next
 * start, `recover` ends every recorded group whose leader is still the same process — same pid
 * and same start time, so a reused pid is never signalled — and removes its cgroups.
 */
export class RunLedger {
  constructor(private readonly dir: string) {}

  /** Records a run's process group; the returned function removes the record when the run is over. */
  record(providerId: string, pid: number, cgroups: string[] = []): () => void {
    const startTicks = startTicksOf(pid)
    if (startTicks === undefined) return () => undefined
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    const file = join(this.dir, `${providerId}-${pid}-${startTicks}.json`)
    writeFileSync(file, JSON.stringify({ providerId, pid, startTicks, cgroups } satisfies RunRecord), { mode: 0o600 })
    return () => rmSync(file, { force: true })
  }

  /** Ends what `providerId`'s runs left running and clears their records; says what it ended. */
  recover(providerId: string): string[] {
    let files: string[]
    try {
      files = readdirSync(this.dir).filter((name) => name.startsWith(`${providerId}-`) && name.endsWith('.json'))
    } catch {
      return []
    }
    const ended: string[] = []
    for (const name of files) {
      const file = join(this.dir, name)
      const record = runRecordSchema.safeParse(readJson(file))
      rmSync(file, { force: true })
      if (!record.success || record.data.providerId !== providerId) continue
      const { pid, startTicks, cgroups } = record.data
      if (startTicksOf(pid) === startTicks && signalGroup(pid)) ended.push(`process group ${pid}`)
      for (const cgroup of cgroups) if (emptyCgroup(cgroup)) ended.push(`cgroup ${cgroup}`)
    }
    return ended
  }
}

/** The start time of a process, or undefined when it is gone. */
export function startTicksOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces and parentheses): state is field 3, start time field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

function signalGroup(pid: number): boolean {
  try {
    process.kill(-pid, 'SIGKILL')
    return true
  } catch {
    return false
  }
}

/** Kills what is left in a per-run cgroup and removes it; true when it existed. */
function emptyCgroup(dir: string): boolean {
  let procs: string
  try {
    procs = readFileSync(join(dir, 'cgroup.procs'), 'utf8')
  } catch {
    return false
  }
  for (const pid of procs.split('\n').filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL')
    } catch {
      // gone already
    }
  }
  try {
    rmdirSync(dir)
  } catch {
    // A process still dying can hold it a moment; an empty leftover cgroup limits nothing.
  }
  return true
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}
