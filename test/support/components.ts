import { accessSync, constants, existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** Whether a system component a test needs is here, and if not, why. */
export type ComponentCheck = { available: boolean; reason: string; path?: string }

/**
 * True when CI demands every real component (`AIRLOCK_REQUIRE_ALL=1`): a missing one is then a
 * failure, not a skip. The Electron binary is exempt (it cannot be downloaded here).
 */
export const requireAll = process.env.AIRLOCK_REQUIRE_ALL === '1'

/** Finds the system Chromium Playwright drives (never a downloaded one). */
export function findChromium(): ComponentCheck {
  const candidates = [process.env.AIRLOCK_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']
  for (const path of candidates) {
    if (path && isExecutable(path)) return { available: true, reason: `Chromium at ${path}`, path }
  }
  return { available: false, reason: 'Chromium not found (install the `chromium` package or set AIRLOCK_CHROMIUM)' }
}

/** Whether the Electron binary exists (npm does not download it at install; see README). */
export function findElectron(): ComponentCheck {
  const dir = resolve(__dirname, '../../node_modules/electron')
  const pathFile = join(dir, 'path.txt')
  if (!existsSync(pathFile)) return { available: false, reason: 'the Electron binary is not installed (node_modules/electron/dist is missing)' }
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8'))
  if (!isExecutable(binary)) return { available: false, reason: `the Electron binary ${binary} is missing` }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { available: false, reason: 'no display (DISPLAY/WAYLAND_DISPLAY unset); run under xvfb-run' }
  }
  return { available: true, reason: `Electron at ${binary}`, path: binary }
}

/**
 * Decides whether a test of a component runs: returns the skip reason when it is absent, and
 * throws instead under AIRLOCK_REQUIRE_ALL (unless the component is exempt).
 */
export function skipReasonFor(name: string, check: ComponentCheck, options: { exempt?: boolean } = {}): string | undefined {
  if (check.available) return undefined
  const reason = `${name} not available on this machine: ${check.reason}`
  if (requireAll && !options.exempt) throw new Error(`AIRLOCK_REQUIRE_ALL=1 but ${reason}`)
  return reason
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
