import { createHost, type Host, type HostConfig } from './host'
import { startWebConsole, type WebConsole } from './app/web-console-server'
import { openInBrowser } from './app/open-in-browser'

/** Options of the headless web console shell (`airlock serve`, `npm run serve`). */
export type ServeOptions = HostConfig & {
  /** Port on 127.0.0.1; default: the `console.port` setting (7410). 0 picks a free port. */
  port?: number
  rendererDir: string
  open: boolean
  /** Where the console URL line goes (the first line the command prints). */
  print: (line: string) => void
}

/** A running headless console: the host plus its web server. */
export type RunningConsole = { host: Host; console: WebConsole; stop(): Promise<void> }

/**
 * The headless shell: builds the host, serves the built renderer and the typed contract on
 * 127.0.0.1, prints the console URL first. Used where Electron cannot start and by e2e tests.
 */
export async function serve(options: ServeOptions): Promise<RunningConsole> {
  const host = createHost(options)
  let webConsole: WebConsole
  try {
    await host.recovered
    webConsole = await startWebConsole({
      host,
      rendererDir: options.rendererDir,
      port: options.port ?? host.settings.get('console.port')
    })
  } catch (error) {
    await host.dispose()
    throw error
  }
  options.print(`Airlock console: ${webConsole.url}`)
  if (options.open) openInBrowser(webConsole.url)
  let stopped: Promise<void> | undefined
  return {
    host,
    console: webConsole,
    stop: () => (stopped ??= webConsole.close().then(() => host.dispose()))
  }
}
