import type { CommandResult } from '../../core'
import { runBounded } from './bounded-process'
import { systemPath } from './run-limits'

/** What a probe observed of one toolchain. */
export type ToolchainFact = { available: boolean; version?: string }

/** The toolchains Airlock's language adapters use, and how to ask each for its version. */
const versionCommands: Record<string, { argv: string[]; pattern: RegExp }> = {
  python: { argv: ['python3', '--version'], pattern: /Python (\d+\.\d+(?:\.\d+)?)/ },
  nodejs: { argv: ['node', '--version'], pattern: /v(\d+\.\d+\.\d+)/ },
  go: { argv: ['go', 'version'], pattern: /go(\d+\.\d+(?:\.\d+)?)/ },
  cpp: { argv: ['g++', '--version'], pattern: /(\d+\.\d+\.\d+)/ },
  bash: { argv: ['bash', '--version'], pattern: /version (\d+\.\d+(?:\.\d+)?)/ }
}

/** Runs a version command on the host. */
const onHost = (argv: string[]) => runBounded({ argv, cwd: '/', env: { PATH: systemPath, LANG: 'C.UTF-8' }, timeoutMs: 10_000, maxOutputBytes: 4096 })

/**
 * Runs each toolchain's version command through `run` (on the host, or inside the sandbox for
 * bubblewrap) and reports what was observed, never what was assumed.
 */
export async function observeToolchains(run: (argv: string[]) => Promise<CommandResult> = onHost): Promise<Record<string, ToolchainFact>> {
  const entries = await Promise.all(
    Object.entries(versionCommands).map(async ([name, { argv, pattern }]) => {
      const result = await run(argv)
      const version = result.exitCode === 0 ? pattern.exec(result.stdout + result.stderr)?.[1] : undefined
      return [name, version ? { available: true, version } : { available: false }] as const
    })
  )
  return Object.fromEntries(entries)
}

/** The languages whose toolchain was observed. */
export function languagesOf(toolchains: Record<string, ToolchainFact>): string[] {
  return Object.entries(toolchains)
    .filter(([, fact]) => fact.available)
    .map(([name]) => name)
}
