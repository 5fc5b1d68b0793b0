import { readdirSync, readFileSync } from 'node:fs'

/** True while a process exists and is not a zombie (this machine's init may not reap orphans). */
export function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/** Live (non-zombie) host processes whose command line contains `marker`: survivors of a call. */
export function liveProcessesMatching(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && isAlive(pid)
      } catch {
        return false
      }
    })
}

/**
 * `liveProcessesMatching` once the kernel has finished what the call started: a process killed
 * with its pid namespace (or group) may take a moment to exit, and is no survivor. Gives up after
 * a second, returning whatever is still alive.
 */
export async function survivorsOf(marker: string): Promise<number[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    if (liveProcessesMatching(marker).length === 0) return []
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return liveProcessesMatching(marker)
}
