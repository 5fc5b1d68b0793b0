import { createHost, startHostGateway, type Host, type HostConfig } from '../host'
import { startWebConsole, type WebConsole } from './web-console-server'
import { canOpenBrowser, openInBrowser } from './open-in-browser'
import { loadConsoleToken } from './console-token'
import { writeLaunchPage } from './launch-page'
import type { AgentGateway } from '../gateway'

/** Options of the headless web console shell (`airlock serve`, `npm run serve`). */
export type ServeOptions = HostConfig & {
  /** Port on 127.0.0.1; default: the `console.port` setting (7410). 0 picks a free port. */
  port?: number
  /** Port of the agent gateway on 127.0.0.1; default: the `gateway.port` setting (7411). 0 picks a free port. */
  gatewayPort?: number
  rendererDir: string
  open: boolean
  /** Where the console URL line (first) and the gateway URL line (second) go. */
  print: (line: string) => void
  /** Where warnings go (stderr): a home sandboxes cannot reach is said first. */
  warn?: (line: string) => void
  /** Make a new console token instead of keeping the home's (ends every open console session). */
  rotateToken?: boolean
}

/** A running headless console: the host, its web server and its agent gateway. */
export type RunningConsole = { host: Host; console: WebConsole; gateway: AgentGateway; stop(): Promise<void> }

/**
 * The headless shell: builds the host, serves the built renderer and the typed contract on
 * 127.0.0.1 and starts the agent gateway; prints the console URL first, the gateway URL second.
 * Used where Electron cannot start and by e2e tests.
 */
export async function serve(options: ServeOptions): Promise<RunningConsole> {
  const host = createHost(options)
  if (host.homeProblem) options.warn?.(`airlock: warning: commands cannot run in sandboxes on this home: ${host.homeProblem}`)
  let webConsole: WebConsole | undefined
  let gateway: AgentGateway
  try {
    await host.recovered
    const consoleToken = loadConsoleToken(host.paths.home, { rotate: options.rotateToken })
    for (const note of consoleToken.notes) options.warn?.(`airlock: ${note}`)
    webConsole = await startWebConsole({
      host,
      token: consoleToken.token,
      rendererDir: options.rendererDir,
      port: options.port ?? host.settings.get('console.port')
    })
    gateway = await startHostGateway(host, { port: options.gatewayPort, logError: options.logError })
  } catch (error) {
    await webConsole?.close()
    await host.dispose()
    throw error
  }
  options.print(`Airlock console: ${webConsole.url}`)
  options.print(`Agent gateway: ${gateway.url}`)
  // Settings › Console token: a new token now; the new URL is printed where the first one was.
  const served = webConsole
  host.serveConsoleTokenRotation(() => {
    const url = served.useToken(loadConsoleToken(host.paths.home, { rotate: true }).token)
    options.print(`Airlock console: ${url}`)
    return url
  })
  // The browser gets a page only this user can read, holding a one-time launch code: never a
  // credential on its command line, which every local user can read.
  let launchPage: { remove(): void } | undefined
  if (options.open && canOpenBrowser()) {
    try {
      const page = writeLaunchPage(host.paths.home, webConsole.launchUrl())
      launchPage = page
      openInBrowser(page.url)
    } catch (error) {
      options.logError?.('Airlock: the browser was not opened', error)
    }
  }
  let stopped: Promise<void> | undefined
  // Agents first (their sessions end and release), then the console, then the host.
  const stop = async () => {
    try {
      host.serveConsoleTokenRotation(undefined)
      launchPage?.remove()
      await gateway.close()
    } finally {
      await webConsole.close()
      await host.dispose()
    }
  }
  return { host, console: webConsole, gateway, stop: () => (stopped ??= stop()) }
}
