import { ErrorCode } from '@modelcontextprotocol/sdk/types.js'

/**
 * The JSON-RPC error codes the gateway answers with. The standard ones where JSON-RPC and MCP
 * name the case (an unknown tool or bad arguments is `-32602`); the rest are in the range JSON-RPC
 * leaves to servers (-32000 to -32099), one per kind of refusal so a client can tell them apart.
 */
export const gatewayErrorCodes = {
  parseError: ErrorCode.ParseError,
  invalidRequest: ErrorCode.InvalidRequest,
  invalidParams: ErrorCode.InvalidParams,
  internalError: ErrorCode.InternalError,
  /** Refused at the HTTP layer: foreign Host/Origin, missing or wrong token, oversize body. */
  refused: -32000,
  /** The MCP session is unknown, ended, or belongs to another agent: start a new one. */
  sessionNotFound: -32001,
  /** The agent already has `gateway.max_sessions_per_agent` sessions open. */
  tooManySessions: -32021,
  /** The agent already has `gateway.max_concurrent_calls` calls in flight. */
  tooManyCalls: -32020,
  /** The agent used up its `gateway.rate_per_minute` budget. */
  rateLimited: -32029
} as const

/** What a refusal's `data` says, for machines: which refusal it is and what a client can do. */
export type GatewayErrorData = { reason: string; retryAfterMs?: number; limit?: number; [key: string]: unknown }

/**
 * A refusal of a request by the gateway. Thrown from a request handler, the SDK sends it as the
 * JSON-RPC error `{code, message, data}` (the message unprefixed, unlike the SDK's `McpError`,
 * whose text would arrive as "MCP error -32029: MCP error -32029: ..." at an SDK client).
 */
export class GatewayRefusal extends Error {
  override readonly name = 'GatewayRefusal'
  constructor(
    readonly code: number,
    message: string,
    readonly data: GatewayErrorData
  ) {
    super(message)
  }
}

/** The longest piece of a caller's text (a tool name, a header) an error message repeats. */
export const maxEchoChars = 128

/**
 * A caller's text as an error message quotes it: JSON-quoted, and cut to `maxEchoChars` with the
 * cut marked, so a request never gets its own megabyte back (twice) in the refusal.
 */
export function quoteForMessage(text: string): string {
  if (text.length <= maxEchoChars) return JSON.stringify(text)
  return `${JSON.stringify(text.slice(0, maxEchoChars))}… (cut; ${text.length} characters in all)`
}
