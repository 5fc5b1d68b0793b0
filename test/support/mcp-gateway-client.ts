import { spawn, type ChildProcess } from 'node:child_process'
import { Agent, request as httpRequest } from 'node:http'
import type { Socket } from 'node:net'
import { createInterface } from 'node:readline'
import { Readable } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { airlockBin } from './run-cli'

/**
 * A real SDK client connected to the gateway as one agent (its token in the bearer header).
 * `maxSockets` sends its requests over at most that many connections (see `pooledFetch`).
 * `close` ends the MCP session first (DELETE), as a well-behaved client does: the gateway caps
 * each agent's open sessions (`gateway.max_sessions_per_agent`), and a test's sessions must not
 * linger until the idle timeout.
 */
export async function connectAgent(
  url: string,
  token: string,
  options: { maxSockets?: number; fetch?: FetchLike } = {}
): Promise<{ client: Client; transport: StreamableHTTPClientTransport; close(): Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    ...(options.maxSockets ? { fetch: pooledFetch(options.maxSockets) } : options.fetch ? { fetch: options.fetch } : {})
  })
  const client = new Client({ name: 'airlock-test-agent', version: '1.0.0' })
  await client.connect(transport)
  const close = async () => {
    await transport.terminateSession().catch(() => undefined)
    await client.close()
  }
  return { client, transport, close }
}

/** A tool result as the gateway returns it: the ActionResult in structuredContent, one text block. */
export type GatewayToolResult = CallToolResult & {
  structuredContent: { ok: boolean; status: string; data?: unknown; error?: { code: string; message: string }; meta: Record<string, unknown> }
}

/** Calls a tool and types the result as the gateway's. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options?: Parameters<Client['callTool']>[2]
): Promise<GatewayToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, options)) as GatewayToolResult
}

/** An initialize request body, as a client's first POST carries it. */
export const initializeBody = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '1' } }
}

/** Headers of a Streamable HTTP POST. */
export function mcpHeaders(token?: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra }
}

/**
 * A raw HTTP request with full control of the headers (fetch cannot send a foreign Host):
 * resolves with the status, headers and body text.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer }
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'POST',
        headers: options.headers,
        setHost: options.headers?.host === undefined
      },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
        response.on('error', reject)
      }
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

/** The JSON-RPC error of a refused request's body. */
export function rpcError(body: string): { code: number; message: string; data?: { reason?: string } } {
  return (JSON.parse(body) as { error: { code: number; message: string; data?: { reason?: string } } }).error
}

/**
 * Starts `airlock serve ... --no-open` and resolves with the process and its first two lines
 * (the console URL, then the gateway URL); `stop` sends SIGTERM and resolves with the exit code.
 */
export async function startServeWithGateway(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; prefix?: string[] } = {}
): Promise<{ child: ChildProcess; consoleLine: string; gatewayLine: string; stderr(): string; stop(): Promise<number | null> }> {
  // `prefix` runs serve under another program (e.g. `unshare … sh -c '…; exec "$@"' sh`).
  const argv = [...(options.prefix ?? []), process.execPath, airlockBin, 'serve', '--no-open', ...args]
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const lines: string[] = []
  await new Promise<void>((resolveLines, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line)
      if (lines.length === 2) resolveLines()
    })
    child.once('exit', (code) => reject(new Error(`airlock serve exited ${code}: ${stderr}`)))
  })
  return {
    child,
    consoleLine: lines[0]!,
    gatewayLine: lines[1]!,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolveExit) => {
        if (child.exitCode !== null) return resolveExit(child.exitCode)
        child.once('exit', (code) => resolveExit(code))
        child.kill('SIGTERM')
      })
  }
}

/**
 * A `fetch` for the SDK transport over node:http with at most `maxSockets` connections: a flood of
 * concurrent calls from one client then needs no more file descriptors than that (a desktop's
 * default limit of 1024 would not hold a thousand sockets on each side in one process).
 */
export function pooledFetch(maxSockets: number): FetchLike {
  return nodeFetch(new Agent({ keepAlive: true, maxSockets }))
}

/** A `fetch` that keeps every socket it uses in `sockets`, so a test can cut them as a network would. */
export function socketKeepingFetch(sockets: Socket[]): FetchLike {
  return nodeFetch(new Agent({ keepAlive: false }), (socket) => sockets.push(socket))
}

/** What the SDK transport calls to send a request. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>

/** `fetch` over node:http with the given agent (the SDK reads the body as a web stream). */
function nodeFetch(agent: Agent, onSocket?: (socket: Socket) => void): FetchLike {
  return (url, init) =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(init?.headers).entries())
      const req = httpRequest(new URL(String(url)), { method: init?.method ?? 'GET', headers, agent, signal: init?.signal ?? undefined }, (response) => {
        const body = response.statusCode === 202 || response.statusCode === 204 ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>)
        const responseHeaders = new Headers()
        for (const [name, value] of Object.entries(response.headers))
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value)
        resolve(new Response(body, { status: response.statusCode ?? 0, headers: responseHeaders }))
      })
      if (onSocket) req.once('socket', onSocket)
      req.on('error', reject)
      req.end(typeof init?.body === 'string' ? init.body : undefined)
    })
}
