import { z } from 'zod'
import { appErrorSchema } from '../result'

/** WebSocket frame from the web console to main: one contract call. */
export const wireCallSchema = z
  .object({
    type: z.literal('call'),
    id: z.number().int().nonnegative(),
    channel: z.string().max(200),
    input: z.unknown()
  })
  .strict()

/** WebSocket frame from main to the web console: a call's result or a pushed event. */
export const wireServerFrameSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('result'),
    id: z.number(),
    result: z.union([z.object({ ok: z.literal(true), value: z.unknown() }), z.object({ ok: z.literal(false), error: appErrorSchema })])
  }),
  z.object({ type: z.literal('event'), channel: z.string(), payload: z.unknown() })
])

/** A frame main sends to the web console. */
export type WireServerFrame = z.infer<typeof wireServerFrameSchema>

/** Path of the WebSocket endpoint of the web console. */
export const wirePath = '/ws'
