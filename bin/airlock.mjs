#!/usr/bin/env node
// The `airlock` command. The app is built into out/ at install (`npm install` runs `prepare`);
// a checkout installed with --ignore-scripts builds it here on first use.
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cli = join(root, 'out', 'main', 'cli.js')
if (!existsSync(cli)) {
  process.stderr.write('airlock: building the app first (out/ is missing)...\n')
  const build = spawnSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (build.status !== 0 || !existsSync(cli)) {
    process.stderr.write('airlock: the build failed; run `npm run build` in the checkout and try again.\n')
    process.exit(1)
  }
}
createRequire(import.meta.url)(cli).main()
