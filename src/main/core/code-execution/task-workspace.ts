import { AirlockError } from '@shared/errors'
import { createHash } from 'node:crypto'
import { closeSync, fchmodSync, fchownSync, readFileSync, realpathSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { ExecutionResourceError } from '../errors'
import {
  descriptorPath,
  makeDirectoryExclusive,
  NoFollowError,
  openBeneath,
  openDirectoryNoFollow,
  openHostDirectory,
  openRegularFile,
  relativeComponents,
  sandboxIdentity,
  writeNewFile,
  type SandboxIdentity
} from '../sandbox'
import { bundleLimits } from '@shared/code-execution'
import { digestOf, type CodeBundle } from './code-bundle'

/** How a task sees the agent's workspace: a snapshot (inputs copied; writes to the area), read-only, or read-write. */
export type GrantMode = 'snapshot' | 'read_only' | 'read_write'

/** The execution area of one action call: `<workspace>/.airlock/executions/<actionCallId>/{source,build,output,logs}`. */
export type ExecutionArea = { root: string; source: string; build: string; output: string; logs: string }

/** A collected output: a regular file the program declared and produced. */
export type CollectedOutput = { path: string; absolutePath: string; bytes: number; sha256: string }

/** A declared output that was not produced (or is not a regular file inside `output/`). */
export class ExpectedOutputMissingError extends AirlockError<'expected_output_missing'> {
  // The one code without a layer prefix: SPEC §5.3 names it to agents as it is.
  constructor(readonly missing: string[]) {
    super('expected_output_missing', `declared outputs were not produced: ${missing.join(', ')}`, { missing })
  }
}

/** True for a workspace's `.airlock/executions`: kept by the host; only its areas are the sandbox's. */
export function isExecutionsFolder(root: string): boolean {
  return basename(root) === 'executions' && basename(dirname(root)) === '.airlock'
}

/**
 * The folder of a workspace's execution areas (`.airlock/executions`), created without following
 * any link a sandbox planted in the workspace, and given to the sandbox identity.
 */
export function ensureExecutionsFolder(workspace: string, owner: SandboxIdentity = sandboxIdentity()): string {
  const real = realpathSync(workspace)
  const root = openDirectoryNoFollow(real)
  try {
    const dotAirlock = openHostDirectory(root, '.airlock', owner)
    try {
      closeSync(openHostDirectory(dotAirlock, 'executions', owner))
    } finally {
      closeSync(dotAirlock)
    }
  } finally {
    closeSync(root)
  }
  return join(real, '.airlock', 'executions')
}

/**
 * A TaskWorkspace access grant (SPEC §5.2): materialised once (exclusive create, digest verified
 * after write), collected once (declared outputs only, regular files, no symlinks), closed once;
 * a closed grant cannot be used. The workspace is writable by sandboxed code, so every step goes
 * through directory descriptors and never follows a link (see `core/sandbox/no-follow.ts`); what
 * it creates belongs to the sandbox identity. `.airlock/executions` is the host's and not
 * listable, so an area is found only by its action call id: give calls unguessable ids (UUIDs).
 */
export class TaskWorkspaceGrant {
  readonly area: ExecutionArea
  private state: 'new' | 'materialised' | 'collected' | 'closed' = 'new'

  constructor(
    readonly workspace: string,
    readonly actionCallId: string,
    readonly mode: GrantMode
  ) {
    if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(actionCallId) || actionCallId.startsWith('.'))
      throw new ExecutionResourceError('invalid_argument', `invalid action call id ${actionCallId}`, { actionCallId })
    const root = join(realpathSync(workspace), '.airlock', 'executions', actionCallId)
    this.area = { root, source: join(root, 'source'), build: join(root, 'build'), output: join(root, 'output'), logs: join(root, 'logs') }
  }

  /** Writes the bundle into `source/` of a new execution area and checks the digest of what landed. */
  materialise(bundle: CodeBundle): void {
    this.expect('new', 'materialised')
    const owner = sandboxIdentity()
    const executions = openDirectoryNoFollow(ensureExecutionsFolder(this.workspace, owner))
    let area: number
    try {
      area = makeDirectoryExclusive(executions, this.actionCallId, owner) // an existing area is never reused
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'already exists' : `could not be created (${(error as Error).message})`
      throw new ExecutionResourceError('workspace_grant_required', `The execution area ${this.area.root} ${why}.`, { cause: String(error) })
    } finally {
      closeSync(executions)
    }
    try {
      for (const name of ['build', 'output', 'logs']) closeSync(makeDirectoryExclusive(area, name, owner))
      const source = makeDirectoryExclusive(area, 'source', owner)
      try {
        for (const file of bundle.files) {
          const parts = relativeComponents(file.path)
          const parent = openBeneath(source, parts.slice(0, -1).join('/'), { create: owner })
          try {
            writeNewFile(parent, parts.at(-1)!, file.bytes, owner)
          } finally {
            closeSync(parent)
          }
        }
        const landed = bundle.files.map((file) => ({ path: file.path, bytes: readFileSync(`${descriptorPath(source)}/${file.path}`) }))
        if (digestOf(landed) !== bundle.digest)
          throw new ExecutionResourceError('bundle_mismatch', `the bundle in ${this.area.source} does not match ${bundle.digest}`, { digest: bundle.digest })
      } finally {
        closeSync(source)
      }
    } finally {
      closeSync(area)
    }
    this.state = 'materialised'
  }

  /** Reads the declared outputs: regular files only, inside `output/`; missing ones fail the execution. */
  collect(expectedOutputs: readonly string[]): CollectedOutput[] {
    this.expect('materialised', 'collected')
    this.state = 'collected'
    const collected: CollectedOutput[] = []
    const missing: string[] = []
    const areaFd = openDirectoryNoFollow(this.area.root)
    let totalBytes = 0
    try {
      for (const declared of expectedOutputs) {
        // Outputs are capped like bundles: a sparse 2 GiB file costs the program nothing and the host a lot.
        const output = this.readOutput(areaFd, declared, Math.min(bundleLimits.maxFileBytes, bundleLimits.maxTotalBytes - totalBytes))
        if (typeof output === 'string') missing.push(output)
        else {
          totalBytes += output.length
          collected.push({
            path: declared,
            absolutePath: join(this.area.root, declared),
            bytes: output.length,
            sha256: createHash('sha256').update(output).digest('hex')
          })
        }
      }
    } finally {
      closeSync(areaFd)
    }
    if (missing.length > 0) throw new ExpectedOutputMissingError(missing)
    return collected
  }

  /** One declared output's bytes, read through descriptors (a link the program left is not followed); else why not. */
  private readOutput(areaFd: number, declared: string, maxBytes: number): Buffer | string {
    const parts = relativeComponents(declared)
    let parent: number
    try {
      parent = openBeneath(areaFd, parts.slice(0, -1).join('/'))
    } catch (error) {
      return error instanceof NoFollowError ? `${declared} (not a regular file)` : declared
    }
    try {
      const { fd, stat } = openRegularFile(parent, parts.at(-1)!)
      try {
        if (stat.size > maxBytes)
          return `${declared} (larger than ${maxBytes} bytes: outputs are capped at ${bundleLimits.maxFileBytes} bytes each, ${bundleLimits.maxTotalBytes} in all)`
        return readFileSync(fd)
      } finally {
        closeSync(fd)
      }
    } catch (error) {
      return error instanceof NoFollowError ? `${declared} (not a regular file)` : declared
    } finally {
      closeSync(parent)
    }
  }

  /** Ends the grant; it cannot be used again. The area stays for history and artifacts. */
  close(): void {
    if (this.state === 'closed') throw new ExecutionResourceError('invalid_state', 'this grant is already closed')
    this.state = 'closed'
    this.takeBackArea()
  }

  /**
   * Under a dedicated sandbox uid the host takes a finished area back (root-owned, 0700, through
   * its descriptor): a later run of the same agent — a warm container sees every area — can
   * neither read nor rewrite an earlier run's sources and outputs.
   */
  private takeBackArea(): void {
    if (!sandboxIdentity().dedicated) return
    let fd: number
    try {
      fd = openDirectoryNoFollow(this.area.root)
    } catch {
      return // never materialised
    }
    try {
      fchownSync(fd, 0, 0)
      fchmodSync(fd, 0o700)
    } finally {
      closeSync(fd)
    }
  }

  /** True once closed. */
  get closed(): boolean {
    return this.state === 'closed'
  }

  private expect(current: 'new' | 'materialised', next: string): void {
    if (this.state === 'closed') throw new ExecutionResourceError('invalid_state', 'this grant is closed')
    if (this.state !== current)
      throw new ExecutionResourceError('invalid_state', `this grant was already ${next === 'materialised' ? 'materialised' : 'collected'}`)
  }
}
