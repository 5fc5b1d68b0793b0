import { redactedSecret } from '@shared/agents'
import type { CallContext } from './call-dispatcher'
import { IpcError } from './ipc-error'

/**
 * The desktop app's own question to the person at the machine (a native dialog): true when they
 * confirmed. The web console has none: a page in a browser can be driven by whoever holds its
 * cookie, so it cannot be the thing that says yes to running code on the host.
 */
export type HostRunConfirmation = (question: { title: string; detail: string }) => Promise<boolean>

/** The shape of an MCP server entry as far as this check reads it (input is untrusted JSON). */
type ServerEntry = { name?: unknown; command?: unknown; unsafe?: unknown; env?: unknown }

/**
 * The names of the MCP servers that `after` marks `unsafe: true` (run on the host, without a
 * sandbox) and `before` did not already run exactly the same way: a new unsafe server, one newly
 * marked, or an unsafe one whose entry changed in any way but its secrets sent back redacted
 * (its command, or its `env`: `LD_PRELOAD` or `NODE_OPTIONS` choose code as surely as the command
 * does). Anything else is not a new grant and needs no question.
 */
export function newlyUnsafeServers(before: unknown, after: unknown): string[] {
  const known = new Map<string, ServerEntry>()
  for (const server of entries(before)) if (server.unsafe === true && typeof server.name === 'string') known.set(server.name, server)
  return entries(after)
    .filter((server) => server.unsafe === true)
    .filter((server) => {
      const stored = typeof server.name === 'string' ? known.get(server.name) : undefined
      return !stored || !sameHostRun(stored, server)
    })
    .map((server) => (typeof server.name === 'string' ? server.name : '(unnamed)'))
}

/**
 * True when a profile (or role defaults) newly authorises `trusted_local`, which runs commands on
 * the host without isolation: `allowUnsafeLocal` true now and not before.
 */
export function newlyAllowsUnsafeLocal(before: unknown, after: unknown): boolean {
  return flag(after, 'allowUnsafeLocal') && !flag(before, 'allowUnsafeLocal')
}

/**
 * The code-execution candidates whose Docker `extraArgs` a settings change sets or changes
 * (`--privileged`, host mounts, `--pid=host`... widen what a container reaches): their ids.
 */
export function changedExtraArgs(before: unknown, after: unknown): string[] {
  const argsOf = (list: unknown) =>
    new Map(
      (Array.isArray(list) ? list : [])
        .filter((entry): entry is { providerId: unknown; config?: { extraArgs?: unknown } } => typeof entry === 'object' && entry !== null)
        .map((entry) => [String(entry.providerId), JSON.stringify(entry.config?.extraArgs ?? [])])
    )
  const was = argsOf(before)
  return [...argsOf(after)].filter(([id, args]) => args !== '[]' && was.get(id) !== args).map(([id]) => id)
}

/** Same command and the same env (a value sent back as the redaction marker counts as the stored one). */
function sameHostRun(stored: ServerEntry, next: ServerEntry): boolean {
  if (JSON.stringify(stored.command ?? null) !== JSON.stringify(next.command ?? null)) return false
  const was = (typeof stored.env === 'object' && stored.env !== null ? stored.env : {}) as Record<string, unknown>
  const now = (typeof next.env === 'object' && next.env !== null ? next.env : {}) as Record<string, unknown>
  const keys = (env: Record<string, unknown>) => Object.keys(env).sort().join('\0')
  return keys(was) === keys(now) && Object.entries(now).every(([key, value]) => value === redactedSecret || value === was[key])
}

function flag(profile: unknown, key: string): boolean {
  return typeof profile === 'object' && profile !== null && (profile as Record<string, unknown>)[key] === true
}

/**
 * Lets a change that runs code on the host without a sandbox — MCP servers marked `unsafe`, or
 * `grant`: another such grant described in words (allowUnsafeLocal, Docker extra arguments) —
 * through only when a person confirmed it outside the console's reach: from the desktop app, its
 * native dialog; from the web console, never (the CLI, which runs as the operator, is the other
 * way). Throws `agent.unsafe_needs_confirmation`.
 */
export async function confirmHostRun(
  context: CallContext,
  servers: string[],
  owner: string,
  confirm: HostRunConfirmation | undefined,
  grant?: string
): Promise<void> {
  if (servers.length === 0 && !grant) return
  const named = servers.join(', ')
  const what = grant ?? `Marking the MCP server ${named} of ${owner} "unsafe" runs it on this machine without a sandbox`
  const refuse = (why: string) => new IpcError('agent.unsafe_needs_confirmation', `${what}; ${why}`, { servers })
  if (context.transport !== 'electron' || !confirm) {
    throw refuse(
      'the web console cannot confirm that. Use the desktop app (it asks in a native dialog) or the CLI: `airlock agent create <id> --profile FILE` / `airlock agent update <id> --profile FILE`.'
    )
  }
  const confirmed = await confirm(
    grant
      ? { title: `Allow ${owner} to run code on this machine without a sandbox?`, detail: `${grant}.` }
      : {
          title: `Run ${named} on this machine without a sandbox?`,
          detail: `${owner} asks to mark the MCP server ${named} "unsafe": its command then runs on the host as the sandbox user, with no namespaces, seccomp filter or network limits, and its tools reach whatever that user can.`
        }
  )
  if (!confirmed) throw refuse('it was not confirmed in the dialog.')
}

function entries(servers: unknown): ServerEntry[] {
  return Array.isArray(servers) ? servers.filter((server): server is ServerEntry => typeof server === 'object' && server !== null) : []
}
