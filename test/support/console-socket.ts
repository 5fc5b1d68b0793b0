import { request } from 'node:http'
import WebSocket from 'ws'
import { wirePath, wireServerFrameSchema } from '@shared/ipc/wire'

/** A contract call's answer as the WebSocket transport sends it. */
export type ConsoleResult = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } }

/**
 * The operator's side of a running `airlock serve`, as the web console reaches it: one WebSocket
 * on the console's `/ws` with the session token of its first printed line. `call` sends one
 * contract call and resolves with its result; `onEvent` hears every pushed event.
 */
export async function connectConsole(consoleLine: string): Promise<ConsoleSocket> {
  const page = new URL(consoleLine.replace(/^Airlock console: /, ''))
  return openConsoleSocket(`ws://${page.host}${wirePath}?token=${page.searchParams.get('token') ?? ''}`)
}

/** An open console WebSocket: contract calls and pushed events. */
export type ConsoleSocket = {
  call(channel: string, input: unknown): Promise<ConsoleResult>
  onEvent(listener: (channel: string, payload: unknown) => void): void
  close(): void
}

/** Opens the console's WebSocket at `url` with these request headers (a cookie, an Origin); rejects with the HTTP status when refused. */
export async function openConsoleSocket(url: string, headers: Record<string, string> = {}): Promise<ConsoleSocket> {
  const ws = new WebSocket(url, { headers })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('unexpected-response', (_request, response) => reject(new Error(`console refused the WebSocket: ${response.statusCode}`)))
    ws.once('error', reject)
  })
  const waiting = new Map<number, (result: ConsoleResult) => void>()
  const listeners: ((channel: string, payload: unknown) => void)[] = []
  ws.on('message', (data) => {
    const frame = wireServerFrameSchema.parse(JSON.parse(data.toString()))
    if (frame.type === 'event') {
      for (const listener of listeners) listener(frame.channel, frame.payload)
      return
    }
    waiting.get(frame.id)?.(frame.result as ConsoleResult)
    waiting.delete(frame.id)
  })
  let next = 1
  return {
    call: (channel, input) =>
      new Promise((resolve, reject) => {
        if (ws.readyState !== ws.OPEN) return reject(new Error(`console socket closed before ${channel}`))
        const id = next++
        waiting.set(id, resolve)
        ws.send(JSON.stringify({ type: 'call', id, channel, input }))
      }),
    onEvent: (listener) => void listeners.push(listener),
    close: () => ws.close()
  }
}

/** The value of a call that must succeed; throws with the error's code and message otherwise. */
export function valueOf<T>(result: ConsoleResult): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`)
  return result.value as T
}

/** A raw HTTP GET of the web console on 127.0.0.1 with chosen headers (fetch cannot set Host, and follows redirects). */
export function consoleGet(
  port: number,
  path: string,
  headers: Record<string, string> = {}
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((done, fail) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = ''
      res.on('data', (chunk) => (body += chunk))
      res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', fail)
    req.end()
  })
}
