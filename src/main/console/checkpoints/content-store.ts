import { AirlockError } from '@shared/errors'
import { createHash, randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'

/** How much of a file is read at once (also how often a long hash gives the event loop back). */
const chunkBytes = 1024 * 1024

/** What storing a file's content gave: its hash, and whether the store now holds it (`kept`). */
export type StoredContent = { hash: string; size: number; kept: boolean; newBytes: number }

/**
 * The checkpoint store's files: `<home>/checkpoints/objects/<2 hex>/<sha256>`, each the whole
 * content of a file (or a link's target) once, whoever had it and however often. The folders are
 * 0700 and the files 0600 and owned by the host user: no sandbox mounts the home (bubblewrap binds
 * only the workspace, Docker only the workspace's path) and the dedicated sandbox uid cannot enter
 * a 0700 folder of root's, so sandboxed code can neither read a checkpoint nor plant one.
 *
 * Decision: whole files, content-addressed, not a shadow git repository. Git would read the
 * workspace's `.gitattributes` and run its filters and fsmonitor unless every one of them is
 * switched off, and it cannot keep what is not a regular file; a plain hash store runs nothing,
 * needs no git on the machine, and dedupes the same. Deltas and compression are left for later: a
 * 1 MB file edited 100 times costs 100 MB (measured in bench/README.md), pruned by the retention settings.
 */
export class ContentStore {
  readonly objects: string

  constructor(readonly root: string) {
    this.objects = join(root, 'objects')
  }

  /** Creates the store's folders (0700) and refuses one that is not a plain folder of this user's. */
  open(): void {
    for (const dir of [this.root, this.objects]) {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      const stat = lstatSync(dir)
      if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid()) || (stat.mode & 0o077) !== 0) {
        throw new Error(`${dir} must be a folder of this user's, mode 0700, to hold workspace checkpoints`)
      }
    }
  }

  /** The file of an object. */
  pathOf(hash: string): string {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not a content hash: ${hash}`)
    return join(this.objects, hash.slice(0, 2), hash)
  }

  /** Stores bytes (a link's target); returns their hash. */
  putBytes(bytes: Buffer, known: (hash: string) => boolean): StoredContent {
    const hash = createHash('sha256').update(bytes).digest('hex')
    if (known(hash)) return { hash, size: bytes.length, kept: true, newBytes: 0 }
    const { temp, fd } = this.createTemp()
    try {
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
    } finally {
      closeSync(fd)
    }
    this.place(temp, hash)
    return { hash, size: bytes.length, kept: true, newBytes: bytes.length }
  }

  /**
   * Hashes the open file `fd` (a regular file of `size` bytes) and, when it is at most `maxBytes`,
   * copies it into the store as it reads. Reads in chunks, yielding between them. Throws
   * `ChangedWhileReading` when the file's size or modification time moved while it was read.
   */
  async putFile(fd: number, maxBytes: number, known: (hash: string) => boolean): Promise<StoredContent> {
    const before = fstatSync(fd)
    const keep = before.size <= maxBytes
    const hasher = createHash('sha256')
    const target = keep ? this.createTemp() : undefined
    const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(1, before.size + 1)))
    let size = 0
    try {
      for (let position = 0; ; ) {
        const read = readSync(fd, buffer, 0, buffer.length, position)
        if (read === 0) break
        const chunk = buffer.subarray(0, read)
        hasher.update(chunk)
        if (target) for (let written = 0; written < read; ) written += writeSync(target.fd, chunk, written)
        position += read
        size = position
        if (keep && size > maxBytes) throw new ChangedWhileReading()
        if (read === buffer.length && buffer.length === chunkBytes) await new Promise((resume) => setImmediate(resume))
      }
      const after = fstatSync(fd)
      if (after.size !== before.size || after.mtimeMs !== before.mtimeMs || size !== before.size) throw new ChangedWhileReading()
    } catch (error) {
      if (target) {
        closeSync(target.fd)
        rmSync(target.temp, { force: true })
      }
      throw error
    }
    const hash = hasher.digest('hex')
    if (!target) return { hash, size, kept: false, newBytes: 0 }
    closeSync(target.fd)
    if (known(hash)) {
      unlinkSync(target.temp)
      return { hash, size, kept: true, newBytes: 0 }
    }
    this.place(target.temp, hash)
    return { hash, size, kept: true, newBytes: size }
  }

  /**
   * An object's bytes, checked against its name: objects are not synced one by one (a workspace's
   * first checkpoint writes thousands), so one a crash left short or that was changed on disk is
   * found here, and refused, instead of being restored.
   */
  read(hash: string): Buffer {
    const bytes = readFileSync(this.pathOf(hash))
    if (createHash('sha256').update(bytes).digest('hex') !== hash)
      throw new Error(`the checkpoint store's copy of ${hash.slice(0, 12)}… is damaged (its content no longer matches its hash)`)
    return bytes
  }

  /** Removes objects nothing refers to any more. */
  remove(hashes: readonly string[]): void {
    for (const hash of hashes) rmSync(this.pathOf(hash), { force: true })
  }

  private createTemp(): { temp: string; fd: number } {
    const temp = join(this.objects, `.incoming-${randomBytes(8).toString('hex')}`)
    return { temp, fd: openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600) }
  }

  private place(temp: string, hash: string): void {
    const path = this.pathOf(hash)
    mkdirSync(join(this.objects, hash.slice(0, 2)), { recursive: true, mode: 0o700 })
    renameSync(temp, path)
  }
}

/** A file that changed while its content was read: it is read again, or recorded as changed without content. */
export class ChangedWhileReading extends AirlockError<'checkpoint.changed_while_reading'> {
  constructor() {
    super('checkpoint.changed_while_reading', 'the file changed while its checkpoint was taken')
  }
}
