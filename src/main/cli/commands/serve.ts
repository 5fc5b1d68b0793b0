import { join } from 'node:path'
import { hostDisposeTimeoutMs, settleWithin } from '../../app/shutdown'
import { serve } from '../../app/serve'
import { defineCommand } from '../command'
import { UsageError } from '../cli-error'

/** `airlock serve`: the headless web console and the agent gateway (SPEC §8.1). */
export const serveCommand = defineCommand({
  name: 'serve',
  usage: 'airlock serve [--home DIR] [--port 7410] [--gateway-port 7411] [--no-open] [--rotate-token]',
  options: { port: 'port', 'gateway-port': 'port', 'no-open': 'flag', 'rotate-token': 'flag' },
  async run({ options, positionals }, io) {
    if (positionals.length > 0) throw new UsageError(`serve takes no arguments, got ${positionals[0]}`)
    // Listen before starting, so Ctrl-C during start-up still releases what the host started.
    const stopSignal = untilSignal(['SIGINT', 'SIGTERM'])
    try {
      const running = await serve({
        home: options.home,
        port: options.port,
        gatewayPort: options['gateway-port'],
        rendererDir: join(io.buildDir, 'renderer'),
        open: options['no-open'] !== true,
        print: io.out,
        warn: io.err,
        rotateToken: options['rotate-token'] === true
      })
      await stopSignal.received
      const settled = await settleWithin(running.stop(), hostDisposeTimeoutMs)
      if (settled.status === 'done') return 0
      io.err(
        settled.status === 'timed_out'
          ? `airlock: stopped before every resource was released (waited ${hostDisposeTimeoutMs / 1000} s); some may still be running`
          : `airlock: stopping failed: ${settled.error instanceof Error ? settled.error.message : String(settled.error)}`
      )
      return 1
    } finally {
      stopSignal.dispose()
    }
  }
})

/** Resolves on the first of `signals`; `dispose` removes the listeners (restoring the default). */
function untilSignal(signals: NodeJS.Signals[]): { received: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined
  const received = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve))
  for (const signal of signals) process.on(signal, onSignal)
  return { received, dispose: () => signals.forEach((signal) => process.off(signal, onSignal)) }
}
