import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

/**
 * A real upstream MCP server over Streamable HTTP on loopback, one SDK server per session (so a
 * cancellation reaches the request it names): `echo` says back its text; `wait` waits up to `ms`
 * for its request to be cancelled, recording the label of every started and every cancelled one.
 */
export async function startUpstream(): Promise<{ url: string; started: string[]; cancelled: string[]; close(): Promise<void> }> {
  const started: string[] = []
  const cancelled: string[] = []
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const newSession = async () => {
    const mcp = new McpServer({ name: 'test-upstream', version: '1.0.0' })
    mcp.registerTool('echo', { description: 'Says back its text', inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text: `echo: ${text}` }]
    }))
    mcp.registerTool(
      'wait',
      { description: 'Waits until cancelled or ms passed', inputSchema: { label: z.string(), ms: z.number() } },
      async ({ label, ms }, extra) => {
        started.push(label)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms)
          extra.signal.addEventListener('abort', () => {
            cancelled.push(label)
            clearTimeout(timer)
            resolve()
          })
        })
        return { content: [{ type: 'text', text: `waited: ${label}` }] }
      }
    )
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport)
    })
    await mcp.connect(transport)
    return transport
  }
  const server: Server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      void (async () => {
        const id = request.headers['mcp-session-id']
        const transport = typeof id === 'string' ? sessions.get(id) : await newSession()
        if (!transport) return void response.writeHead(404).end()
        await transport.handleRequest(request, response, body ? JSON.parse(body) : undefined)
      })()
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`,
    started,
    cancelled,
    close: async () => {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()))
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  }
}
