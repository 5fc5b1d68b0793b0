import { createHash } from 'node:crypto'
import { lstatSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { ExecutionResourceError } from '../errors'
import { digestOf, type CodeBundle } from './code-bundle'

/** How a task sees the agent's workspace: a snapshot (inputs copied; writes to the area), read-only, or read-write. */
export type GrantMode = 'snapshot' | 'read_only' | 'read_write'

/** The execution area of one action call: `<workspace>/.airlock/executions/<actionCallId>/{source,build,output,logs}`. */
export type ExecutionArea = { root: string; source: string; build: string; output: string; logs: string }

/** A collected output: a regular file the program declared and produced. */
export type CollectedOutput = { path: string; absolutePath: string; bytes: number; sha256: string }

/**
 * A TaskWorkspace access grant (SPEC §5.2): materialised once (exclusive create, digest verified
 * after write), collected once (declared outputs only, regular files, no symlinks), closed once;
 * a closed grant cannot be used.
 */
export class TaskWorkspaceGrant {
  readonly area: ExecutionArea
  private state: 'new' | 'materialised' | 'collected' | 'closed' = 'new'

  constructor(
    readonly workspace: string,
    readonly actionCallId: string,
    readonly mode: GrantMode
  ) {
    if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(actionCallId) || actionCallId.startsWith('.')) throw new Error(`invalid action call id ${actionCallId}`)
    const root = join(realpathSync(workspace), '.airlock', 'executions', actionCallId)
    this.area = { root, source: join(root, 'source'), build: join(root, 'build'), output: join(root, 'output'), logs: join(root, 'logs') }
  }

  /** Writes the bundle into `source/` of a new execution area and checks the digest of what landed. */
  materialise(bundle: CodeBundle): void {
    this.expect('new', 'materialised')
    mkdirSync(dirname(this.area.root), { recursive: true })
    try {
      mkdirSync(this.area.root) // exclusive: an existing area is never reused
    } catch (error) {
      throw new ExecutionResourceError('workspace_grant_required', `The execution area ${this.area.root} already exists.`, { cause: String(error) })
    }
    for (const dir of [this.area.source, this.area.build, this.area.output, this.area.logs]) mkdirSync(dir)
    for (const file of bundle.files) {
      const target = join(this.area.source, file.path)
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, file.bytes, { flag: 'wx' })
    }
    const landed = bundle.files.map((file) => ({ path: file.path, bytes: readFileSync(join(this.area.source, file.path)) }))
    if (digestOf(landed) !== bundle.digest) throw new Error(`the bundle in ${this.area.source} does not match ${bundle.digest}`)
    this.state = 'materialised'
  }

  /** Reads the declared outputs: regular files only, inside `output/`; missing ones fail the execution. */
  collect(expectedOutputs: readonly string[]): CollectedOutput[] {
    this.expect('materialised', 'collected')
    this.state = 'collected'
    const outputRoot = realpathSync(this.area.output)
    const collected: CollectedOutput[] = []
    const missing: string[] = []
    for (const declared of expectedOutputs) {
      const absolutePath = join(this.area.root, declared)
      let stat
      try {
        stat = lstatSync(absolutePath)
      } catch {
        missing.push(declared)
        continue
      }
      if (!stat.isFile() || relative(outputRoot, realpathSync(absolutePath)).startsWith('..')) {
        missing.push(`${declared} (not a regular file)`)
        continue
      }
      const bytes = readFileSync(absolutePath)
      collected.push({ path: declared, absolutePath, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') })
    }
    if (missing.length > 0) {
      throw Object.assign(new Error(`declared outputs were not produced: ${missing.join(', ')}`), { code: 'expected_output_missing', missing })
    }
    return collected
  }

  /** Ends the grant; it cannot be used again. The area stays for history and artifacts. */
  close(): void {
    if (this.state === 'closed') throw new Error('this grant is already closed')
    this.state = 'closed'
  }

  /** True once closed. */
  get closed(): boolean {
    return this.state === 'closed'
  }

  private expect(current: 'new' | 'materialised', next: string): void {
    if (this.state === 'closed') throw new Error('this grant is closed')
    if (this.state !== current) throw new Error(`this grant was already ${next === 'materialised' ? 'materialised' : 'collected'}`)
  }
}
