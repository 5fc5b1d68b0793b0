import { findExecutable } from '../provider-helpers'

/** Where a system Chromium usually is (Playwright drives it; Airlock never downloads one). */
const knownPaths = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium'
]

/** Finds the Chromium executable: configured, else `AIRLOCK_CHROMIUM`, else a known system path. */
export function findChromium(configured?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return findExecutable(configured ? [configured] : [env.AIRLOCK_CHROMIUM, ...knownPaths])
}

/** Flags for a headless, quiet Chromium that makes no connections of its own. */
export function chromiumArgs(options: { loopbackOnly: boolean }): string[] {
  return [
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-default-apps',
    '--disable-extensions',
    // Root cannot use Chromium's own sandbox; the page still runs in a separate renderer process.
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    // No network: every host name fails to resolve except loopback ones.
    ...(options.loopbackOnly ? ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE [::1]'] : [])
  ]
}

/** True for URLs a loopback-only browser may load. */
export function isLoopbackUrl(url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol === 'about:' || parsed.protocol === 'data:' || parsed.protocol === 'blob:') return true
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:' && parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') return false
  const host = parsed.hostname.replace(/^\[|\]$/g, '')
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)
}
