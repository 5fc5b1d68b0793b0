import { readFileSync } from 'node:fs'

/** True while a process exists and is not a zombie (this machine's init may not reap orphans). */
export function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}
