import { createHash } from 'node:crypto'
import { bundleLimits, codeExecutionRequestSchema, type CodeExecutionRequest, type CodeLanguage } from '@shared/code-execution'
import { ExecutionResourceError } from '../errors'
import { adapterFor } from './language-adapters'

/** One file of an immutable bundle. */
export type BundleFile = { readonly path: string; readonly bytes: Buffer; readonly sha256: string }

/** What the provider needs to run a bundle (never the raw request). */
export type BundleManifest = {
  readonly language: CodeLanguage
  readonly entrypoint: string
  readonly args: readonly string[]
  readonly expectedOutputs: readonly string[]
  readonly dependencies?: { kind: string; path: string }
}

/** An immutable, content-addressed code bundle. */
export type CodeBundle = {
  readonly digest: `sha256:${string}`
  readonly files: readonly BundleFile[]
  readonly manifest: BundleManifest
  readonly totalBytes: number
}

/**
 * Validates a request (paths, limits, outputs) and turns it into an immutable bundle whose digest
 * covers every path and byte. Anything invalid is refused here, before anything runs.
 */
export function createCodeBundle(input: unknown): CodeBundle {
  const parsed = codeExecutionRequestSchema.safeParse(input)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`)
    throw new ExecutionResourceError('invalid_requirement', `Invalid code execution request: ${issues.join('; ')}.`, { issues })
  }
  const request: CodeExecutionRequest = parsed.data
  const adapter = adapterFor(request.language)
  const sources = request.files ?? [{ path: request.entrypoint ?? adapter.defaultEntrypoint, content: request.sourceCode!, encoding: 'utf8' as const }]
  if (request.dependencies) sources.push({ path: request.dependencies.kind, content: request.dependencies.content, encoding: 'utf8' })
  let totalBytes = 0
  const files = sources.map((file) => {
    const bytes = Buffer.from(file.content, file.encoding === 'base64' ? 'base64' : 'utf8')
    if (bytes.length > bundleLimits.maxFileBytes) refuse(`${file.path} is larger than ${bundleLimits.maxFileBytes} bytes`)
    totalBytes += bytes.length
    return Object.freeze({ path: file.path, bytes, sha256: createHash('sha256').update(bytes).digest('hex') })
  })
  if (totalBytes > bundleLimits.maxTotalBytes) refuse(`the bundle is larger than ${bundleLimits.maxTotalBytes} bytes`)
  if (new Set(files.map((f) => f.path)).size !== files.length) refuse('a dependency manifest collides with a file of the same name')
  files.sort((a, b) => (a.path < b.path ? -1 : 1))
  const manifest: BundleManifest = Object.freeze({
    language: request.language,
    entrypoint: request.entrypoint ?? adapter.defaultEntrypoint,
    args: Object.freeze([...(request.args ?? [])]),
    expectedOutputs: Object.freeze([...(request.expectedOutputs ?? [])]),
    ...(request.dependencies ? { dependencies: { kind: request.dependencies.kind, path: request.dependencies.kind } } : {})
  })
  return Object.freeze({ digest: digestOf(files), files: Object.freeze(files), manifest, totalBytes })
}

/** The digest of a file list: sha256 over each path, size and content hash, in path order. */
export function digestOf(files: readonly { path: string; bytes: Buffer }[]): `sha256:${string}` {
  const hash = createHash('sha256')
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    hash.update(`${file.path}\0${file.bytes.length}\0${createHash('sha256').update(file.bytes).digest('hex')}\n`)
  }
  return `sha256:${hash.digest('hex')}`
}

function refuse(message: string): never {
  throw new ExecutionResourceError('invalid_requirement', `Invalid code execution request: ${message}.`, {})
}
