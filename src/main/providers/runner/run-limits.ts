import type { ResourcePolicy } from '../../core'
import { ProviderError } from '../../core/provider-error'

/** Defaults when a policy does not say (SPEC §6.1 agent defaults). */
export const defaultTimeoutSeconds = 120
export const defaultMaxOutputBytes = 1024 * 1024

/** The PATH every local runner uses: system directories only, never the caller's. */
export const systemPath = '/usr/local/bin:/usr/bin:/bin'

/** A run's deadline: what the call asks, never more than the policy allows. */
export function timeoutMsFor(policy: ResourcePolicy, requestedSeconds: number | undefined): number {
  const ceiling = policy.timeoutSeconds ?? defaultTimeoutSeconds
  const seconds = requestedSeconds === undefined ? ceiling : Math.min(Math.max(requestedSeconds, 0.1), ceiling)
  return Math.round(seconds * 1000)
}

/** The output cap per stream: what the run asks, never more than the policy allows. */
export function outputCapFor(policy: ResourcePolicy, requestedBytes?: number): number {
  const ceiling = policy.maxOutputBytes ?? defaultMaxOutputBytes
  return requestedBytes === undefined ? ceiling : Math.min(Math.max(Math.floor(requestedBytes), 0), ceiling)
}

/** A variable name a runner accepts from a caller. */
const envName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/

/**
 * Builds a child environment from a small base and the caller's variables (never the parent's
 * environment, so Airlock's own secrets do not leak into programs). Bad names are refused.
 */
export function childEnv(base: Record<string, string>, extra: Record<string, string> | undefined): Record<string, string> {
  const env = { ...base }
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (!envName.test(name) || typeof value !== 'string' || value.includes('\0')) {
      throw new ProviderError('invalid_environment', `environment variable ${JSON.stringify(name).slice(0, 60)} is not a valid name/value`)
    }
    env[name] = value
  }
  return env
}

/** One signal that aborts when any of the given ones does. */
export function eitherSignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined))
}

/** A run's stderr with Airlock's own notes after it, one `airlock: …` line each (a limit that ended it, what was moved). */
export function withAirlockNotes(stderr: string, notes: readonly string[]): string {
  if (notes.length === 0) return stderr
  return `${stderr}${stderr === '' || stderr.endsWith('\n') ? '' : '\n'}${notes.map((note) => `airlock: ${note}\n`).join('')}`
}
