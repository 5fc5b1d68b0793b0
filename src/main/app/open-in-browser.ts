import { spawn } from 'node:child_process'

/**
 * Opens a URL in the operator's browser when there is a desktop to open it on; otherwise does
 * nothing (the URL was printed). Failures are ignored: opening is a convenience.
 */
export function openInBrowser(url: string): void {
  const parsed = new URL(url)
  // A file: URL is only ever Airlock's own launch page (see launch-page.ts).
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:' && parsed.protocol !== 'file:') return
  const command = process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', url] : ['xdg-open', url]
  if (!canOpenBrowser()) return
  try {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'ignore', detached: true })
    child.on('error', () => undefined)
    child.unref()
  } catch {
    // No opener on this machine: the printed URL is enough.
  }
}

/** True where there is a desktop to open a browser on (always on macOS and Windows; a display on Linux). */
export function canOpenBrowser(): boolean {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
}
