import { execFileSync } from 'node:child_process'
import { resolve } from 'node:path'

/**
 * Vitest global setup: tests of the CLI and the web console run the built app (out/), so build
 * it once per run. `npm test` builds before vitest and sets AIRLOCK_SKIP_BUILD=1.
 */
export default function setup(): void {
  if (process.env.AIRLOCK_SKIP_BUILD === '1') return
  execFileSync(process.execPath, [resolve(__dirname, '../../node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: resolve(__dirname, '../..'),
    stdio: ['ignore', 'ignore', 'inherit']
  })
}
