import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { serve, type RunningConsole } from '../../src/main/app/serve'

/**
 * `airlock serve` with a desktop to open a browser on (DISPLAY set) and `opener` as the
 * `xdg-open` on PATH (a shell script body; its argv is what every local user can read in /proc).
 * The home is `<dir>/home`; PATH and DISPLAY are restored once the console runs.
 */
export async function serveWithOpener(dir: string, opener: string): Promise<RunningConsole> {
  const bin = join(dir, 'bin')
  mkdirSync(bin)
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\n${opener}\n`)
  chmodSync(join(bin, 'xdg-open'), 0o755)
  const saved = { PATH: process.env.PATH, DISPLAY: process.env.DISPLAY }
  process.env.PATH = `${bin}:${process.env.PATH}`
  process.env.DISPLAY = ':99'
  try {
    return await serve({
      home: join(dir, 'home'),
      port: 0,
      gatewayPort: 0,
      rendererDir: resolve(__dirname, '../../out/renderer'),
      open: true,
      print: () => undefined
    })
  } finally {
    process.env.PATH = saved.PATH
    if (saved.DISPLAY === undefined) delete process.env.DISPLAY
    else process.env.DISPLAY = saved.DISPLAY
  }
}
