import type { CallContext } from './call-dispatcher'
import { IpcError } from './ipc-error'

/**
 * The desktop app's own question to the person at the machine (a native dialog): true when they
 * confirmed. The web console has none: a page in a browser can be driven by whoever holds its
 * cookie, so it cannot be the thing that says yes to running code on the host.
 */
export type HostRunConfirmation = (question: { title: string; detail: string }) => Promise<boolean>

/** The shape of an MCP server entry as far as this check reads it (input is untrusted JSON). */
type ServerEntry = { name?: unknown; command?: unknown; unsafe?: unknown }

/**
 * The names of the MCP servers that `after` marks `unsafe: true` (run on the host, without a
 * sandbox) and `before` did not already run the same way: a new unsafe server, one newly marked,
 * or an unsafe one whose command changed. Anything else is not a new grant and needs no question.
 */
export function newlyUnsafeServers(before: unknown, after: unknown): string[] {
  const known = new Map<string, string>()
  for (const server of entries(before)) if (server.unsafe === true && typeof server.name === 'string') known.set(server.name, JSON.stringify(server.command ?? null))
  return entries(after)
    .filter((server) => server.unsafe === true)
    .filter((server) => typeof server.name !== 'string' || known.get(server.name) !== JSON.stringify(server.command ?? null))
    .map((server) => (typeof server.name === 'string' ? server.name : '(unnamed)'))
}

/**
 * Lets a change that marks MCP servers `unsafe` through only when a person confirmed it outside
 * the console's reach: from the desktop app, its native dialog; from the web console, never
 * (the CLI, which runs as the operator, is the other way). Throws `agent.unsafe_needs_confirmation`.
 */
export async function confirmHostRun(context: CallContext, servers: string[], owner: string, confirm: HostRunConfirmation | undefined): Promise<void> {
  if (servers.length === 0) return
  const named = servers.join(', ')
  const refuse = (why: string) =>
    new IpcError('agent.unsafe_needs_confirmation', `Marking the MCP server ${named} of ${owner} "unsafe" runs it on this machine without a sandbox; ${why}`, { servers })
  if (context.transport !== 'electron' || !confirm) {
    throw refuse('the web console cannot confirm that. Use the desktop app (it asks in a native dialog) or the CLI: `airlock agent create <id> --profile FILE` / `airlock agent update <id> --profile FILE`.')
  }
  const confirmed = await confirm({
    title: `Run ${named} on this machine without a sandbox?`,
    detail: `${owner} asks to mark the MCP server ${named} "unsafe": its command then runs on the host as the sandbox user, with no namespaces, seccomp filter or network limits, and its tools reach whatever that user can.`
  })
  if (!confirmed) throw refuse('it was not confirmed in the dialog.')
}

function entries(servers: unknown): ServerEntry[] {
  return Array.isArray(servers) ? servers.filter((server): server is ServerEntry => typeof server === 'object' && server !== null) : []
}
