import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A fresh temporary directory for one test (an AIRLOCK_HOME or a scratch folder). */
export function makeTempDir(prefix = 'airlock-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}
