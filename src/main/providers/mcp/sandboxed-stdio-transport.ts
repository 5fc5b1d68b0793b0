import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { SandboxedStdioProcess } from '../bubblewrap/stdio-sandbox'

/**
 * The MCP client transport to a stdio server running in a sandbox (SDK `Transport`, framed like
 * the SDK's own stdio transport with its `ReadBuffer` and `serializeMessage`). The SDK's
 * `StdioClientTransport` spawns the program itself and cannot hand bwrap the descriptors it needs
 * (seccomp program, options, bind sources), so here `launch` starts the sandbox and this only
 * speaks over its stdin and stdout. Closing it stops the sandbox.
 */
export class SandboxedStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T) => void

  private readonly buffer = new ReadBuffer()
  private running?: SandboxedStdioProcess
  private closed = false

  constructor(private readonly launch: () => SandboxedStdioProcess) {}

  /** The host pid of the sandbox launcher, once started. */
  get pid(): number | undefined {
    return this.running?.pid
  }

  /** What the server last wrote to stderr (for a failure's message). */
  stderrTail(): string {
    return this.running?.stderrTail() ?? ''
  }

  async start(): Promise<void> {
    if (this.running) throw new Error('this sandboxed stdio transport was already started')
    const running = (this.running = this.launch())
    const { child } = running
    child.on('error', (error) => this.onerror?.(error))
    child.on('close', () => void this.close())
    child.stdin!.on('error', (error) => this.onerror?.(error))
    child.stdout!.on('error', (error) => this.onerror?.(error))
    child.stdout!.on('data', (chunk: Buffer) => {
      try {
        this.buffer.append(chunk)
      } catch (error) {
        // Past the buffer's cap without a complete message: the server is flooding; end it.
        this.onerror?.(error as Error)
        void this.close()
        return
      }
      for (;;) {
        let message: JSONRPCMessage | null
        try {
          message = this.buffer.readMessage()
        } catch (error) {
          this.onerror?.(error as Error)
          continue
        }
        if (message === null) break
        this.onmessage?.(message)
      }
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.running?.child.stdin
    if (!stdin || this.closed || !stdin.writable) return Promise.reject(new Error('Not connected'))
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve()
      else stdin.once('drain', resolve)
    })
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.running?.stop()
    this.buffer.clear()
    this.onclose?.()
  }
}
