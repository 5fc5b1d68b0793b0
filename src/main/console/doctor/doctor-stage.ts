import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { claimWorkspace } from '../../core'

/**
 * The doctor's stage for one run: a workspace the sandbox may use, and on the host beside it what
 * an escape would touch: a folder with a secret file, a file next to the workspace, a canary
 * process whose command line carries a random marker, and a TCP listener on loopback that counts
 * connections. Everything is under `<home>/doctor/` and removed by `close`.
 */
export type DoctorStage = {
  /** The run's folder (holds the workspace and the host-only files). */
  dir: string
  workspace: string
  outside: string
  secret: string
  marker: string
  canaryPid: number
  canaryAlive(): boolean
  port: number
  connections(): number
  close(): Promise<void>
}

/** Builds a stage under `base` (created 0711 so a dedicated sandbox uid can reach the workspace). */
export async function openDoctorStage(base: string): Promise<DoctorStage> {
  const token = randomBytes(6).toString('hex')
  mkdirSync(base, { recursive: true, mode: 0o711 })
  const dir = join(base, `run-${token}`)
  mkdirSync(dir, { mode: 0o711 })
  const workspace = join(dir, 'workspace')
  claimWorkspace(workspace)
  const outside = join(dir, 'outside')
  mkdirSync(outside, { mode: 0o755 })
  const secret = `AIRLOCK-DOCTOR-SECRET-${token}`
  // World-readable on purpose: only the boundary, not file modes, may keep the sandbox out.
  writeFileSync(join(outside, 'secret.txt'), `${secret}\n`, { mode: 0o644 })
  writeFileSync(join(dir, 'host-only.txt'), 'beside the workspace\n', { mode: 0o644 })
  const marker = `airlock-doctor-${token}`
  const canary: ChildProcess = spawn('sleep', ['900'], { argv0: marker, stdio: 'ignore' })
  let exited = false
  canary.once('exit', () => (exited = true))
  let connections = 0
  const listener: Server = createServer((socket) => {
    connections++
    socket.destroy()
  })
  await new Promise<void>((resolve, reject) => listener.once('error', reject).listen(0, '127.0.0.1', () => resolve()))
  const address = listener.address()
  return {
    dir,
    workspace,
    outside,
    secret,
    marker,
    canaryPid: canary.pid ?? -1,
    canaryAlive: () => !exited && isRunning(canary.pid),
    port: typeof address === 'object' && address ? address.port : 0,
    connections: () => connections,
    async close() {
      canary.kill('SIGKILL')
      for (const pid of processesNamed(marker)) killQuietly(pid)
      await new Promise<void>((resolve) => listener.close(() => resolve()))
      // An attempt that mounted something (a failed boundary) must not keep the stage busy.
      if (readFileSync('/proc/self/mountinfo', 'utf8').includes(join(workspace, 'doctor-mnt'))) spawnSync('umount', ['-l', join(workspace, 'doctor-mnt')])
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Pids of host processes whose command line holds `needle` (read from the host's /proc). */
export function processesNamed(needle: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(needle)) found.push(Number(name))
    } catch {
      // Gone while looking.
    }
  }
  return found
}

/** Whether a pid is a live process: present in /proc and not a zombie (killed, not yet reaped). */
function isRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // Already gone.
  }
}
