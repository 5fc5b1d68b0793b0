import { accessSync, constants } from 'node:fs'
import type { z } from 'zod'
import type { ProviderProbe } from '../core'

/** The first of `candidates` that is an executable file. */
export function findExecutable(candidates: readonly (string | undefined)[]): string | undefined {
  return candidates.find((path): path is string => {
    if (!path) return false
    try {
      accessSync(path, constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/** A probe answer for config its schema refused, naming every field and why. */
export function invalidConfig(providerId: string, error: z.ZodError): ProviderProbe {
  return { available: false, reason: `invalid ${providerId} config: ${error.issues.map((i) => `${i.path.join('.') || 'config'} ${i.message}`).join('; ')}` }
}

/** Caches an async probe result for a while (probes run before every ensure). */
export function cached<T>(ttlMs: number, load: () => Promise<T>): () => Promise<T> {
  let value: { at: number; promise: Promise<T> } | undefined
  return () => {
    if (!value || performance.now() - value.at > ttlMs) {
      const promise = load()
      value = { at: performance.now(), promise }
      promise.catch(() => (value = undefined))
    }
    return value.promise
  }
}
