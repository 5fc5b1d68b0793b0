import { z } from 'zod'
import type { NamespaceSpec } from './contract'

/** Which transport carries the contract to this console. */
export const transportSchema = z.enum(['electron', 'websocket'])

/** The `system` namespace: facts about the running Airlock. */
export const systemContract = {
  calls: {
    info: {
      input: z.object({}).strict(),
      output: z.object({
        appVersion: z.string(),
        home: z.string(),
        databasePath: z.string(),
        transport: transportSchema,
        platform: z.string(),
        nodeVersion: z.string()
      })
    },
    /**
     * The web console only: makes a new console token (what `airlock serve --rotate-token` does at
     * start), which ends every other console session; returns the URL that opens this console
     * with it. The desktop app has no token and refuses.
     */
    rotateConsoleToken: { input: z.object({}).strict(), output: z.object({ url: z.string() }) }
  },
  events: {
    /**
     * Another process wrote this home's database (the CLI, a second console, `airlock serve` on
     * the same home): what a view shows may be stale, so it reads it again.
     */
    changedElsewhere: { payload: z.object({ dataVersion: z.number().int() }).strict() }
  }
} satisfies NamespaceSpec

/** Facts about the running Airlock, as `system.info` returns them. */
export type SystemInfo = z.infer<typeof systemContract.calls.info.output>
