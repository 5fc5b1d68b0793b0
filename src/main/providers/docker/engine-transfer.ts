import { closeSync, fstatSync, readdirSync, readFileSync, unlinkSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { Readable } from 'node:stream'
import type Docker from 'dockerode'
import tar from 'tar-stream'
import { bundleLimits } from '@shared/code-execution'
import {
  descriptorPath,
  openBeneath,
  openChildDirectory,
  openDirectoryNoFollow,
  openRegularFile,
  relativeComponents,
  writeNewFile,
  type SandboxIdentity
} from '../../core'
import { runHelper } from './container-exec'
import { runUser } from './container-spec'
import { DockerProviderError } from './docker-errors'

/**
 * Moves a run's execution area between this host and a container on an engine that shares no
 * paths with it (a remote engine, `DOCKER_HOST=tcp://…` or `ssh://…`), over the Docker API:
 * before the run the area (the code bundle) goes in with `putArchive`; after it, what the run left
 * in the area comes back with `getArchive`, and the container's copy is emptied so a later run of
 * the same warm container sees nothing of it (locally the host takes a finished area back instead).
 *
 * Why tar-stream: the engine's archive API speaks tar, and tar-stream (already under dockerode)
 * reads and writes it as plain entries. Every file operation on this host stays ours, through the
 * core's no-follow descriptors, because what comes back from a container is hostile input: only
 * regular files and directories are taken (links, devices and fifos are skipped and counted), no
 * entry may leave the area (`..`, absolute names), modes lose setuid/setgid/sticky bits, everything
 * written belongs to the sandbox identity, and what comes back is capped like a bundle.
 */
export class EngineTransfer {
  constructor(
    private readonly docker: Docker,
    private readonly container: Docker.Container,
    private readonly identity: SandboxIdentity
  ) {}

  /** Copies each area (a directory of this host) into the container at the same path. */
  async into(areas: readonly string[]): Promise<void> {
    for (const area of areas) {
      try {
        await this.container.putArchive(packArea(area), { path: dirname(area) })
      } catch (error) {
        if (error instanceof DockerProviderError) throw error
        throw new DockerProviderError(
          'docker.copy_failed',
          `The execution area ${area} could not be copied into the container on the remote engine: ${(error as Error).message}`,
          { area },
          { cause: error }
        )
      }
    }
  }

  /** Brings back what the run left in each area, then empties the container's copy. Returns how many entries were skipped. */
  async back(areas: readonly string[]): Promise<{ skipped: number }> {
    let skipped = 0
    for (const area of areas) {
      try {
        const stream = await this.container.getArchive({ path: area })
        skipped += await unpackArea(stream as Readable, area, this.identity)
      } catch (error) {
        if (error instanceof DockerProviderError) throw error
        throw new DockerProviderError(
          'docker.copy_failed',
          `What the run wrote in ${area} could not be copied back from the remote engine: ${(error as Error).message}`,
          { area },
          { cause: error }
        )
      } finally {
        await runHelper(this.docker, this.container, ['find', area, '-mindepth', '1', '-delete'], runUser(this.identity)).catch(() => undefined)
      }
    }
    return { skipped }
  }
}

/** Most bytes copied in or back for one area (sources, build files and outputs together). */
export const transferLimitBytes = 2 * bundleLimits.maxTotalBytes
/** Most entries copied back for one area. */
export const transferLimitEntries = 4 * bundleLimits.maxFiles

/** Only permission bits travel: no setuid, setgid or sticky bit. */
const permissionBits = 0o777

/**
 * A tar of the area as it is on this host, named `<area name>/…` (extracted into the area's
 * parent). Read through descriptors, never following a link; only directories and regular files
 * (the host made the area; anything else in it is skipped). Owners and modes are kept.
 */
export function packArea(area: string): Readable {
  const pack = tar.pack()
  const root = openDirectoryNoFollow(area)
  const budget = { bytes: 0 }
  try {
    addDirectory(pack, root, basename(area), budget)
  } finally {
    closeSync(root)
  }
  pack.finalize()
  return pack
}

function addDirectory(pack: tar.Pack, dirFd: number, name: string, budget: { bytes: number }): void {
  const stat = fstatSync(dirFd)
  pack.entry({ name: `${name}/`, type: 'directory', mode: stat.mode & permissionBits, uid: stat.uid, gid: stat.gid, mtime: stat.mtime })
  for (const entry of readdirSync(descriptorPath(dirFd), { withFileTypes: true })) {
    const child = `${name}/${entry.name}`
    if (entry.isDirectory()) {
      const fd = openChildDirectory(dirFd, entry.name)
      try {
        addDirectory(pack, fd, child, budget)
      } finally {
        closeSync(fd)
      }
    } else if (entry.isFile()) {
      const { fd, stat: file } = openRegularFile(dirFd, entry.name)
      try {
        budget.bytes += file.size
        if (budget.bytes > transferLimitBytes)
          throw new DockerProviderError(
            'docker.copy_refused',
            `The execution area holds more than ${transferLimitBytes} bytes; it is not copied to the remote engine.`,
            { limit: transferLimitBytes }
          )
        pack.entry({ name: child, mode: file.mode & permissionBits, uid: file.uid, gid: file.gid, mtime: file.mtime }, readFileSync(fd))
      } finally {
        closeSync(fd)
      }
    }
  }
}

/**
 * Writes the regular files and directories of a tar from the container (`<area name>/…`) into the
 * area on this host; returns how many entries were skipped (links, devices, fifos, or a file where
 * a directory of the same name already is). An entry outside the area, or more than the limits,
 * fails the whole copy.
 */
export function unpackArea(stream: Readable, area: string, identity: SandboxIdentity): Promise<number> {
  const extract = tar.extract()
  const root = openDirectoryNoFollow(area)
  const prefix = basename(area)
  let skipped = 0
  let bytes = 0
  let entries = 0
  return new Promise<number>((resolve, reject) => {
    let failed = false
    const fail = (error: unknown) => {
      if (failed) return
      failed = true
      stream.unpipe(extract)
      extract.destroy()
      ;(stream as Readable & { destroy?: () => void }).destroy?.()
      reject(error)
    }
    extract.on('entry', (header, body, next) => {
      let parts: string[]
      try {
        entries += 1
        if (entries > transferLimitEntries)
          throw new DockerProviderError(
            'docker.copy_refused',
            `The run left more than ${transferLimitEntries} entries in its execution area; nothing more is copied back.`,
            { limit: transferLimitEntries }
          )
        parts = relativeComponents(header.name)
        if (parts[0] !== prefix)
          throw new DockerProviderError('docker.copy_refused', `The engine returned ${JSON.stringify(header.name)}, which is not inside the area ${prefix}.`, {
            entry: header.name
          })
        parts = parts.slice(1)
      } catch (error) {
        fail(
          error instanceof DockerProviderError
            ? error
            : new DockerProviderError('docker.copy_refused', `The engine returned an entry that leaves the area: ${(error as Error).message}`, {
                entry: header.name
              })
        )
        return
      }
      const chunks: Buffer[] = []
      body.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        if (bytes > transferLimitBytes)
          fail(
            new DockerProviderError(
              'docker.copy_refused',
              `The run left more than ${transferLimitBytes} bytes in its execution area; nothing more is copied back.`,
              { limit: transferLimitBytes }
            )
          )
        else if (header.type === 'file') chunks.push(chunk)
      })
      body.on('end', () => {
        if (failed) return
        try {
          if (parts.length > 0 && header.type === 'directory') closeSync(openBeneath(root, parts.join('/'), { create: identity }))
          else if (parts.length > 0 && header.type === 'file') skipped += placeFile(root, parts, Buffer.concat(chunks), identity)
          else if (parts.length > 0) skipped += 1
          next()
        } catch (error) {
          fail(error)
        }
      })
      body.resume()
    })
    extract.on('finish', () => {
      if (!failed) resolve(skipped)
    })
    extract.on('error', fail)
    stream.on('error', fail)
    stream.pipe(extract)
  }).finally(() => closeSync(root))
}

/** Writes one file at `parts` below the area: new, or replacing a regular file there (never a link). 1 when skipped. */
function placeFile(root: number, parts: string[], bytes: Buffer, identity: SandboxIdentity): number {
  const parent = openBeneath(root, parts.slice(0, -1).join('/'), { create: identity })
  const name = parts.at(-1)!
  try {
    try {
      writeNewFile(parent, name, bytes, identity)
      return 0
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    let same: boolean
    try {
      const { fd } = openRegularFile(parent, name)
      try {
        same = readFileSync(fd).equals(bytes)
      } finally {
        closeSync(fd)
      }
    } catch {
      return 1 // a directory or a link where the file would go: left as it is
    }
    if (same) return 0
    // unlink does not follow the last component; the parent is the descriptor already walked to.
    unlinkSync(`${descriptorPath(parent)}/${name}`)
    writeNewFile(parent, name, bytes, identity)
    return 0
  } finally {
    closeSync(parent)
  }
}
