import { AirlockError } from '@shared/errors'
import type { z } from 'zod'
import { contractErrorCodes, fail, ok, type Result } from '@shared/result'
import { parseChannel, type NamespaceSpec } from '@shared/ipc'

/** Who is calling: the handlers may answer differently per transport (e.g. `system.info`). */
export type CallContext = { transport: 'electron' | 'websocket' }

type MaybePromise<T> = T | Promise<T>

/** The main-side implementation of a contract: one small function per call. */
export type ContractHandlers<C extends Record<string, NamespaceSpec>> = {
  [N in keyof C]: {
    [K in keyof C[N]['calls']]: (input: z.output<C[N]['calls'][K]['input']>, context: CallContext) => MaybePromise<z.input<C[N]['calls'][K]['output']>>
  }
}

/** Validates and runs one call by channel name; never throws (errors become results). */
export type CallDispatcher = (channel: string, input: unknown, context: CallContext) => Promise<Result<unknown>>

/** Inputs larger than this (as JSON) are refused before validation. */
export const maxInputBytes = 1024 * 1024

/**
 * Builds the one place where every transport's calls enter main: channel check, size limit,
 * strict schema validation, handler, error mapping. A handler never sees unvalidated input.
 */
export function createCallDispatcher<C extends Record<string, NamespaceSpec>>(
  contract: C,
  handlers: ContractHandlers<C>,
  options: { onInternalError?: (error: unknown, channel: string) => void } = {}
): CallDispatcher {
  return async (channel, input, context) => {
    const parsedChannel = typeof channel === 'string' ? parseChannel(channel) : undefined
    // Own keys only: `airlock:constructor:get` or `airlock:settings:toString` must not reach
    // Object.prototype (that threw here, and a rejected dispatch would end the web console).
    const spec = parsedChannel ? ownEntry(ownEntry(contract, parsedChannel.namespace)?.calls, parsedChannel.name) : undefined
    const handler = parsedChannel
      ? ownEntry(ownEntry(handlers as Record<string, Record<string, unknown>>, parsedChannel.namespace), parsedChannel.name)
      : undefined
    if (!parsedChannel || !spec || typeof handler !== 'function') {
      return fail(contractErrorCodes.unknownCall, `Unknown call ${JSON.stringify(String(channel)).slice(0, 120)}.`)
    }
    const size = jsonSize(input)
    if (size === undefined) return fail(contractErrorCodes.validation, 'input: must be plain JSON data.')
    if (size > maxInputBytes) {
      return fail(contractErrorCodes.validation, `input: too large (${size} bytes; the limit is ${maxInputBytes}).`)
    }
    const parsed = spec.input.safeParse(input)
    if (!parsed.success) return fail(contractErrorCodes.validation, formatIssues(parsed.error.issues))
    try {
      const value = await (handler as (input: unknown, context: CallContext) => unknown)(parsed.data, context)
      return ok(spec.output.parse(value))
    } catch (error) {
      return failureOf(error, channel, options.onInternalError)
    }
  }
}

/** Formats zod issues as `field.path: message; ...`, naming the field for the operator. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${['input', ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ')
}

function ownEntry<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined
}

function jsonSize(input: unknown): number | undefined {
  try {
    const text = JSON.stringify(input)
    return text === undefined ? 0 : Buffer.byteLength(text)
  } catch {
    return undefined
  }
}

function failureOf(error: unknown, channel: string, onInternalError?: (error: unknown, channel: string) => void): Result<never> {
  if (error instanceof AirlockError) return fail(error.code, error.message)
  onInternalError?.(error, channel)
  return fail(contractErrorCodes.internal, error instanceof Error ? error.message : String(error))
}
