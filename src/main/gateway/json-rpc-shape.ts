import type { HttpRefusal } from './gateway-http'
import { gatewayErrorCodes } from './gateway-errors'

/** The first protocol version without JSON-RPC batches (2025-06-18 removed them). */
const batchesRemovedIn = '2025-06-18'

/**
 * What the SDK leaves to the server about a POST body's JSON-RPC shape, refused as the spec says
 * (`-32600 Invalid Request`, HTTP 400) before the SDK sees it: an empty batch; a batch on a session
 * whose negotiated version has none; a message without `"jsonrpc": "2.0"`; an `id` that is not a
 * string or a number (`null` included); a request or notification without a string `method`;
 * anything that is not an object. (The SDK would answer some of these as a parse error, -32700,
 * and accept the rest.) `protocolVersion`: the session's negotiated version, when there is a session.
 */
export function jsonRpcShapeRefusal(parsed: unknown, protocolVersion: string | undefined): HttpRefusal | undefined {
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return invalid('empty_batch', 'Invalid Request: an empty batch.')
    if (protocolVersion !== undefined && protocolVersion >= batchesRemovedIn) {
      return invalid(
        'batch_not_supported',
        `Invalid Request: protocol version ${protocolVersion} (this session's) has no JSON-RPC batches; send one message per POST.`
      )
    }
    for (const message of parsed) {
      const refusal = messageRefusal(message)
      if (refusal) return refusal
    }
    return undefined
  }
  return messageRefusal(parsed)
}

function messageRefusal(message: unknown): HttpRefusal | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return invalid('not_an_object', 'Invalid Request: a JSON-RPC message is an object.')
  const record = message as Record<string, unknown>
  if (record.jsonrpc !== '2.0') return invalid('jsonrpc_version', 'Invalid Request: "jsonrpc" must be "2.0".')
  if ('id' in record && typeof record.id !== 'string' && !(typeof record.id === 'number' && Number.isFinite(record.id))) {
    return invalid('invalid_id', 'Invalid Request: "id" must be a string or a number (not null).')
  }
  const isResponse = 'result' in record || 'error' in record
  if (!isResponse && typeof record.method !== 'string') return invalid('method_missing', 'Invalid Request: a request or notification needs a string "method".')
  return undefined
}

function invalid(reason: string, message: string): HttpRefusal {
  return { status: 400, code: gatewayErrorCodes.invalidRequest, reason, message }
}

/** What a server assumes when a request carries no `MCP-Protocol-Version` (the transport spec's backwards-compatible default). */
const assumedWithoutHeader = '2025-03-26'

/**
 * A request's `MCP-Protocol-Version` header that names another version than the session
 * negotiated, refused (400) with both. Decision: the version a server assumes without the header
 * (2025-03-26) is accepted as if absent — clients send it explicitly (the official conformance
 * suite does on every request after initialize).
 */
export function protocolHeaderRefusal(header: string | string[] | undefined, protocolVersion: string | undefined): HttpRefusal | undefined {
  if (header === undefined || protocolVersion === undefined || header === protocolVersion || header === assumedWithoutHeader) return undefined
  return {
    status: 400,
    code: gatewayErrorCodes.invalidRequest,
    reason: 'protocol_version_mismatch',
    message: `Bad Request: MCP-Protocol-Version ${JSON.stringify(String(header)).slice(0, 40)} is not this session's negotiated version ${protocolVersion}.`
  }
}
