import { AirlockError } from '@shared/errors'
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats
} from 'node:fs'
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

/** Why no gateway may be trusted on a home, in words for people. */
export class GatewayNotTrusted extends AirlockError<'gateway.not_trusted'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('gateway.not_trusted', message, {}, options)
  }
}

/**
 * The address of the gateway running on this home, only when it can be trusted with an agent's
 * token (`airlock mcp-stdio` asks before every request it relays); otherwise throws
 * `GatewayNotTrusted` saying why. Trusted means:
 * - `run/` and `run/gateway.json` are this user's (no link; the file opened with `O_NOFOLLOW` and
 *   judged on its descriptor), neither writable by group or others, the file a regular file;
 * - its writer runs as this user and, per the kernel, holds the listening socket on
 *   127.0.0.1:<port> (`/proc/net/tcp` and the writer's descriptors). That is what makes it an
 *   Airlock gateway rather than whoever took the port after it ended: the process that wrote the
 *   file is the one that listens. Its command line is not consulted (text proves nothing).
 * Without `/proc` (not Linux) only the writer's liveness can be checked.
 */
export function trustedGatewayAddress(home: string): GatewayAddress {
  const gone = `No agent gateway is running on ${home}; start \`airlock serve\` or the desktop app on this home first.`
  const file = gatewayAddressFile(home)
  const uid = process.getuid?.()
  const runDir = join(home, 'run')
  if (!lstatOrUndefined(file)) throw new GatewayNotTrusted(gone)
  const dir = lstatOrUndefined(runDir)
  if (!dir?.isDirectory() || (uid !== undefined && dir.uid !== uid) || (dir.mode & 0o022) !== 0) {
    throw new GatewayNotTrusted(
      `Refused ${runDir}: it must be a directory of this user, not writable by group or others (someone else could plant the gateway's address).`
    )
  }
  let text: string
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new GatewayNotTrusted(gone)
    throw new GatewayNotTrusted(
      `Refused ${file}: ${code === 'ELOOP' ? 'it is a symbolic link' : `it cannot be opened (${code})`}; the gateway writes a regular file there.`
    )
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) {
      throw new GatewayNotTrusted(
        `Refused ${file}: it must be a regular file of this user, not writable by group or others (someone else could plant the gateway's address).`
      )
    }
    text = readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
  let address: GatewayAddress
  try {
    address = gatewayAddressSchema.parse(JSON.parse(text))
  } catch {
    throw new GatewayNotTrusted(`Refused ${file}: it is not a gateway address Airlock wrote.`)
  }
  if (address.url !== `http://127.0.0.1:${address.port}/mcp`) throw new GatewayNotTrusted(`Refused ${file}: its URL and port disagree.`)
  if (!addressIsLive(address)) throw new GatewayNotTrusted(gone)
  if (existsSync('/proc/net/tcp')) {
    const owner = lstatOrUndefined(`/proc/${address.pid}`)
    if (!owner || (uid !== undefined && owner.uid !== uid))
      throw new GatewayNotTrusted(`Refused ${file}: the process that wrote it (${address.pid}) is not this user's.`)
    if (!holdsListeningSocket(address.pid, address.port)) throw new GatewayNotTrusted(gone)
  }
  return address
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/** Whether `pid` holds the socket listening on 127.0.0.1:`port`, as the kernel reports it. */
function holdsListeningSocket(pid: number, port: number): boolean {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`
  const inodes = new Set<string>()
  try {
    for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      // sl local_address rem_address st ... inode (field 9); 0A is LISTEN.
      if (fields[1] === local && fields[3] === '0A' && fields[9]) inodes.add(`socket:[${fields[9]}]`)
    }
    if (inodes.size === 0) return false
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return true
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  } catch {
    return false
  }
  return false
}
