import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'

/** What `<home>/run/gateway.json` says: where the gateway of the process running on this home listens. */
export const gatewayAddressSchema = z.object({
  url: z.string().regex(/^http:\/\/127\.0\.0\.1:\d{1,5}\/mcp$/),
  port: z.number().int().min(1).max(65535),
  pid: z.number().int().positive(),
  startedAt: z.string()
})

/** Where a running gateway can be found. */
export type GatewayAddress = z.infer<typeof gatewayAddressSchema>

/** The file a running gateway's address is written to (owner-only). */
export function gatewayAddressFile(home: string): string {
  return join(home, 'run', 'gateway.json')
}

/**
 * Writes the gateway's address for `airlock mcp-stdio` and the Agents view (owner-only: `run/` is
 * 0700, the file 0600; written beside and renamed, so a reader never sees half of it). Returns the
 * function that removes it again, only while it is still this process's.
 */
export function writeGatewayAddress(home: string, address: { url: string; port: number }): () => void {
  const file = gatewayAddressFile(home)
  mkdirSync(join(home, 'run'), { recursive: true, mode: 0o700 })
  const record: GatewayAddress = { url: address.url, port: address.port, pid: process.pid, startedAt: new Date().toISOString() }
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, file)
  return () => {
    if (readGatewayAddress(home)?.pid === process.pid) rmSync(file, { force: true })
  }
}

/** The address a gateway on this home wrote, or undefined when there is none (or it is unreadable). */
export function readGatewayAddress(home: string): GatewayAddress | undefined {
  try {
    const parsed = gatewayAddressSchema.safeParse(JSON.parse(readFileSync(gatewayAddressFile(home), 'utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** Whether the process that wrote an address still runs (a crashed one leaves its file behind). */
export function addressIsLive(address: GatewayAddress): boolean {
  try {
    process.kill(address.pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The URL agents connect to on this home: the running gateway's, else the configured `gateway.port`'s. */
export function gatewayUrl(home: string, settings: { get(key: 'gateway.port'): number }): string {
  const address = readGatewayAddress(home)
  return address && addressIsLive(address) ? address.url : `http://127.0.0.1:${settings.get('gateway.port')}/mcp`
}
