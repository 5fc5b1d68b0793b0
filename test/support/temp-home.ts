import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Where sandbox tests keep their workspaces: outside /tmp (a sandbox gets its own fresh /tmp, so a
 * workspace under the host's /tmp would sit inside that throwaway tmpfs), and, when the tests run
 * as root, outside /root (mode 0700): sandboxes then run as an unprivileged uid that must be able
 * to reach the workspace, as README's "Running as root" says.
 */
export const sandboxTestBase = process.getuid?.() === 0 ? '/var/lib/airlock-test' : join(homedir(), '.cache', 'airlock-test')

/**
 * A fresh temporary directory for one test (an AIRLOCK_HOME or a scratch folder). Sandbox tests
 * pass `outsideTmp` (see `sandboxTestBase`).
 */
export function makeTempDir(prefix = 'airlock-test-', options: { outsideTmp?: boolean } = {}): { path: string; remove(): void } {
  const base = options.outsideTmp ? sandboxTestBase : tmpdir()
  mkdirSync(base, { recursive: true, mode: 0o711 })
  const path = mkdtempSync(join(base, prefix))
  // mkdtemp makes it 0700; a sandbox's unprivileged uid must be able to search through it.
  if (options.outsideTmp) chmodSync(path, 0o711)
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}
