import { randomBytes } from 'node:crypto'
import { closeSync, lstatSync, mkdirSync, openSync, rmSync, writeSync, constants } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** How long a launch page stays on disk (the browser reads it at once; the code in it expires anyway). */
const launchPageLifetimeMs = 30_000

/**
 * A browser the console opens itself must not find a credential on its command line: `xdg-open`
 * and the browser keep it there, readable by every local user in `/proc`, who could exchange a
 * launch code before the browser does. So the opener gets the path of a small page in
 * `<home>/run/` (the folder 0700, the file 0600, created exclusively, never through a link) that
 * redirects to the launch URL: another user sees the path and cannot read what is in it. The
 * page removes itself after `launchPageLifetimeMs`, and `remove()` takes it away sooner.
 * (Jupyter opens its browser the same way, for the same reason.)
 */
export function writeLaunchPage(home: string, launchUrl: string): { url: string; remove(): void } {
  const dir = join(home, 'run')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const stat = lstatSync(dir)
  if (!stat.isDirectory() || (stat.mode & 0o077) !== 0 || (process.getuid && stat.uid !== process.getuid())) {
    throw new Error(`${dir} must be a directory of this user's, mode 0700, to hold the console's launch page`)
  }
  const path = join(dir, `console-launch-${randomBytes(12).toString('hex')}.html`)
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  try {
    const href = launchUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
    writeSync(
      fd,
      `<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${href}"><title>Airlock</title></head>` +
        `<body><p>Opening the Airlock console… <a href="${href}">continue</a></p></body></html>\n`
    )
  } finally {
    closeSync(fd)
  }
  let removed = false
  const remove = () => {
    if (removed) return
    removed = true
    clearTimeout(timer)
    rmSync(path, { force: true })
  }
  const timer = setTimeout(remove, launchPageLifetimeMs)
  timer.unref()
  return { url: pathToFileURL(path).href, remove }
}
