import { join } from 'node:path'
import { serve } from '../../serve'
import type { Command } from '../command'
import { UsageError } from '../usage-error'

/** `airlock serve`: the headless web console (and, once it exists, the agent gateway). */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the web console on 127.0.0.1 (prints its URL first)',
  usage: 'airlock serve [--home DIR] [--port 7410] [--gateway-port 7411] [--no-open]',
  options: { port: 'port', 'gateway-port': 'port', 'no-open': 'flag' },
  async run({ options, positionals }, io) {
    if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got ${positionals[0]}`)
    const running = await serve({
      home: options.home as string | undefined,
      port: options.port as number | undefined,
      rendererDir: join(io.buildDir, 'renderer'),
      open: options['no-open'] !== true,
      print: io.out
    })
    // The agent gateway arrives with its own issue; until then --gateway-port is validated only.
    await new Promise<void>((resolve) => {
      const stop = () => void running.stop().then(resolve)
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    return 0
  }
}
