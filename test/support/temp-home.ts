import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A fresh temporary directory for one test (an AIRLOCK_HOME or a scratch folder). Sandbox tests
 * pass `outsideTmp`: a sandbox gets its own fresh /tmp, so a workspace under the host's /tmp
 * would sit inside that throwaway tmpfs and hide what really happens to paths next to it.
 */
export function makeTempDir(prefix = 'airlock-test-', options: { outsideTmp?: boolean } = {}): { path: string; remove(): void } {
  const base = options.outsideTmp ? join(homedir(), '.cache', 'airlock-test') : tmpdir()
  mkdirSync(base, { recursive: true })
  const path = mkdtempSync(join(base, prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}
