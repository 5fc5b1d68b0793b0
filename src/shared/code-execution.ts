import { z } from 'zod'

/** Languages the code-execution adapters know (SPEC §4: build step then run step for compiled ones). */
export const codeLanguageSchema = z.enum(['python', 'nodejs', 'bash', 'go', 'cpp'])

/** Bundle limits (SPEC §5.2). */
export const bundleLimits = {
  maxPathBytes: 4096,
  maxFiles: 1024,
  maxFileBytes: 16 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
  maxArgs: 256,
  maxExpectedOutputs: 128
} as const

/** UTF-8 byte length of a string (no TextEncoder: src/shared runs without DOM or node types). */
function utf8Length(text: string): number {
  let bytes = 0
  for (const char of text) {
    const code = char.codePointAt(0)!
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
  }
  return bytes
}

/**
 * A path inside a bundle: relative, NFC-normalised, no `..`, no absolute path, no backslash or
 * NUL, no empty or `.` segments, at most 4096 bytes.
 */
export const bundlePathSchema = z
  .string()
  .min(1)
  .superRefine((path, ctx) => {
    const problem = path.includes('\0')
      ? 'contains NUL'
      : path.includes('\\')
        ? 'contains a backslash'
        : path.startsWith('/') || /^[A-Za-z]:/.test(path)
          ? 'is absolute'
          : path.normalize('NFC') !== path
            ? 'is not NFC-normalised'
            : utf8Length(path) > bundleLimits.maxPathBytes
              ? `is longer than ${bundleLimits.maxPathBytes} bytes`
              : path.split('/').some((segment) => segment === '..')
                ? 'contains ..'
                : path.split('/').some((segment) => segment === '' || segment === '.')
                  ? 'has an empty or . segment'
                  : undefined
    if (problem) ctx.addIssue({ code: 'custom', message: `path ${JSON.stringify(path.slice(0, 80))} ${problem}` })
  })

/** One file of a bundle: UTF-8 text, or base64 for binary content. */
export const bundleFileSchema = z.object({ path: bundlePathSchema, content: z.string(), encoding: z.enum(['utf8', 'base64']).optional() }).strict()

/** A declared dependency manifest; installed only under a runtime profile that allows it. */
export const dependencyManifestSchema = z.object({ kind: z.enum(['requirements.txt', 'package.json']), content: z.string().max(1024 * 1024) }).strict()

/** What a caller asks to run (SPEC §5.2): code or files, an entrypoint, args and declared outputs. */
export const codeExecutionRequestSchema = z
  .object({
    language: codeLanguageSchema.describe('The runtime that runs the program (tools/list offers only the ones this agent may use).'),
    sourceCode: z.string().optional().describe('The whole program as one file (give this or files).'),
    files: z
      .array(bundleFileSchema)
      .max(bundleLimits.maxFiles)
      .optional()
      .describe('The program as several files, each a relative path and its content (give this or sourceCode; then also entrypoint).'),
    entrypoint: bundlePathSchema.optional().describe('Which of files runs (required with files).'),
    args: z
      .array(z.string().refine((arg) => !arg.includes('\0'), 'argument contains NUL'))
      .max(bundleLimits.maxArgs)
      .optional()
      .describe('Command-line arguments of the program.'),
    expectedOutputs: z
      .array(bundlePathSchema)
      .max(bundleLimits.maxExpectedOutputs)
      .optional()
      .describe('Files the program writes under output/ (as "output/<name>") that come back as artifacts; a missing one is an error.'),
    dependencies: dependencyManifestSchema.optional().describe('Packages to install before it runs (where the agent may install them).')
  })
  .strict()
  .superRefine((request, ctx) => {
    if ((request.sourceCode === undefined) === (request.files === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['sourceCode'], message: 'give exactly one of sourceCode or files' })
    }
    const seen = new Set<string>()
    for (const [index, output] of (request.expectedOutputs ?? []).entries()) {
      if (!output.startsWith('output/') || output === 'output/') {
        ctx.addIssue({ code: 'custom', path: ['expectedOutputs', index], message: `${output} must be a file under output/ (exactly, case-sensitive)` })
      }
      const folded = output.toLowerCase()
      if (seen.has(folded))
        ctx.addIssue({ code: 'custom', path: ['expectedOutputs', index], message: `${output} duplicates another output when case is ignored` })
      seen.add(folded)
    }
    const paths = new Set<string>()
    for (const [index, file] of (request.files ?? []).entries()) {
      if (paths.has(file.path)) ctx.addIssue({ code: 'custom', path: ['files', index, 'path'], message: `${file.path} appears twice` })
      paths.add(file.path)
    }
    if (request.files && request.entrypoint && !paths.has(request.entrypoint)) {
      ctx.addIssue({ code: 'custom', path: ['entrypoint'], message: `${request.entrypoint} is not one of the files` })
    }
    if (request.files && !request.entrypoint) ctx.addIssue({ code: 'custom', path: ['entrypoint'], message: 'an entrypoint is required with files' })
  })

/** The isolation selection policy and the unsafe fallback (SPEC §3.4). */
export const codeIsolationSchema = z
  .object({ isolation: z.enum(['required', 'preferred', 'none']), unsafeFallback: z.boolean().optional() })
  .strict()
  .refine((value) => !(value.unsafeFallback && value.isolation === 'required'), {
    message: 'unsafeFallback is only valid with isolation preferred or none',
    path: ['unsafeFallback']
  })

export type CodeLanguage = z.infer<typeof codeLanguageSchema>
export type CodeExecutionRequest = z.infer<typeof codeExecutionRequestSchema>
export type CodeIsolation = z.infer<typeof codeIsolationSchema>
