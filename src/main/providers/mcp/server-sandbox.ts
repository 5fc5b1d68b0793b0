import { closeSync, realpathSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import { isAbsolute, join, relative, sep } from 'node:path'
import { assertReachableBySandbox, assertWritableBySandbox, NoFollowError, openBeneath, openDirectoryNoFollow, type SandboxIdentity } from '../../core'
import type { OpenBind } from '../bubblewrap/sandbox-binds'
import { childEnv, systemPath } from '../process/run-limits'
import { findExecutable } from '../process/provider-helpers'
import { ProviderError } from '../process/provider-error'
import { isInside, WorkspaceBoundaryError } from '../process/workspace-paths'

/**
 * Where a sandboxed stdio MCP server may look, and what it is given (issue 11, SPEC §4):
 *
 * - **Scratch**: `<workspaces>/<agent>/integrations/<server>/`, created for the sandbox identity
 *   and opened from the workspaces folder one component at a time without following a link (the
 *   agent's own sandboxes can write `integrations/`, so a planted symlink there is refused, never
 *   followed). It is the only writable directory, the server's HOME and cwd.
 * - **Read-only paths**: the operator's `readOnlyPaths`, each resolved to its real path once and
 *   then opened without following links (a swap after the check fails the open). Refused: `/`,
 *   the Airlock home (and anything inside it or above it: other agents' workspaces, the database,
 *   the run ledger), the user's home directory (and anything above it; a folder inside it, such as
 *   a toolchain under `~/.nvm`, is allowed), and the kernel's and runtime's trees (`/proc`, `/sys`,
 *   `/dev`, `/run`). Only directories: a bind is made from an open directory.
 * - **Program**: argv[0] resolved on the host before the sandbox exists — absolute as given, or a
 *   bare name looked up in the system directories only (never a PATH from the server's `env`) —
 *   and it must be visible inside: under the system directories or a read-only path.
 * - **Environment**: `PATH` (system directories), `HOME` (the scratch), `LANG`, `TMPDIR`, then the
 *   server's own `env` on top. That env is the operator's trusted config and applies inside the
 *   sandbox only: the launcher (bash, prlimit, bwrap) starts with an empty environment, so
 *   `LD_PRELOAD` or `PATH` there cannot change which program bwrap is or what it binds.
 */

/** The directories every sandbox sees read-only (bwrap binds them; see sandbox-command.ts). */
const systemDirectories = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']

/** Host trees a server never gets, whatever the operator lists: the kernel's and the runtime's (sockets live in /run). */
const forbiddenTrees = ['/proc', '/sys', '/dev', '/run', '/var/run']

/** A server name (as `mcpServerSchema` allows it) and an agent id (as the agent service allows it): one path component each. */
const serverNamePattern = /^[a-z0-9][a-z0-9_-]{0,39}$/
const agentIdPattern = /^[a-z0-9][a-z0-9-]{0,62}$/

/** What a sandboxed server is started with; `close` closes the bind descriptors once the sandbox holds its own. */
export type ServerSandboxPlan = { argv: string[]; binds: OpenBind[]; cwd: string; env: Record<string, string>; close(): void }

/** What the plan is built from: the provider's Airlock home and the requirement's config. */
export type ServerSandboxInput = {
  home: string
  identity: SandboxIdentity
  command: string
  args: readonly string[]
  scratch: string
  readOnlyPaths: readonly string[]
  env: Record<string, string> | undefined
}

/**
 * Checks what can be checked without touching anything (the program, the read-only paths, the
 * scratch's shape): what a probe runs. Returns the resolved program and the read-only real paths.
 */
export function checkServerSandbox(input: Omit<ServerSandboxInput, 'identity' | 'env'>): { command: string; readOnly: string[]; homeReal: string } {
  const homeReal = realOrRefuse(input.home, 'the Airlock home')
  const readOnly = input.readOnlyPaths.map((path) => checkReadOnlyPath(path, homeReal))
  const command = resolveSandboxedCommand(input.command, readOnly)
  scratchParts(homeReal, input.scratch)
  return { command, readOnly, homeReal }
}

/** Opens the scratch and read-only directories, resolves the program and builds the environment; throws a typed refusal otherwise. */
export function planServerSandbox(input: ServerSandboxInput): ServerSandboxPlan {
  const { command, readOnly, homeReal } = checkServerSandbox(input)
  const binds: OpenBind[] = []
  try {
    const scratch = openScratch(homeReal, input.scratch, input.identity)
    binds.push(scratch)
    for (const path of readOnly) binds.push({ fd: openDirectoryNoFollow(path), dest: path, writable: false })
    const env = childEnv({ PATH: systemPath, HOME: scratch.dest, LANG: 'C.UTF-8', TMPDIR: '/tmp' }, input.env)
    return { argv: [command, ...input.args], binds, cwd: scratch.dest, env, close: () => closeAll(binds) }
  } catch (error) {
    closeAll(binds)
    throw error
  }
}

/**
 * Opens (making it if needed, for the sandbox identity) the scratch `<workspaces>/<agent>/integrations/<server>`:
 * the path must be exactly that shape under the real workspaces folder, and no component is followed if it is a link.
 */
function openScratch(homeReal: string, scratch: string, identity: SandboxIdentity): OpenBind {
  const { workspaces, agent, server } = scratchParts(homeReal, scratch)
  // As for a bubblewrap run: a home the sandbox uid cannot search (under /root) is refused with the fix.
  assertReachableBySandbox(join(workspaces, agent), identity)
  let fd: number
  try {
    const workspacesFd = openDirectoryNoFollow(workspaces)
    // The agent's workspace must exist already (the agent service made it); integrations/<server> is made here when missing.
    const agentFd = openBeneath(workspacesFd, agent, { closeBase: true })
    try {
      fd = openBeneath(agentFd, `integrations/${server}`, { create: identity })
    } finally {
      closeSync(agentFd)
    }
  } catch (error) {
    // A link on the way keeps its own typed refusal; anything else (a missing workspace) is said plainly.
    if (error instanceof NoFollowError) throw error
    throw new WorkspaceBoundaryError(`the scratch directory ${scratch} cannot be opened or made: ${(error as Error).message}`)
  }
  try {
    assertWritableBySandbox(fd, scratch, identity)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  return { fd, dest: join(workspaces, agent, 'integrations', server), writable: true }
}

/** The agent and server a scratch path names, when it is exactly `<real workspaces folder>/<agent>/integrations/<server>`. */
function scratchParts(homeReal: string, scratch: string): { workspaces: string; agent: string; server: string } {
  const workspaces = realOrRefuse(join(homeReal, 'workspaces'), 'the workspaces folder')
  const parts = isAbsolute(scratch) ? relative(workspaces, scratch).split(sep) : []
  const [agent, integrations, server] = parts
  if (parts.length !== 3 || !agent || !agentIdPattern.test(agent) || integrations !== 'integrations' || !server || !serverNamePattern.test(server)) {
    throw new WorkspaceBoundaryError(`the scratch directory ${scratch} is not <workspaces>/<agent>/integrations/<server> under ${workspaces}`)
  }
  return { workspaces, agent, server }
}

/** The real path of an operator's read-only path, after refusing what a server must never see. */
function checkReadOnlyPath(path: string, homeReal: string): string {
  if (!isAbsolute(path)) throw new WorkspaceBoundaryError(`the read-only path ${path} is not absolute`)
  const real = realOrRefuse(path, `the read-only path ${path}`)
  const refuse = (why: string) => {
    const via = real === path ? '' : ` (it leads to ${real})`
    return new WorkspaceBoundaryError(`the read-only path ${path}${via} is refused: ${why}`)
  }
  if (real === '/') throw refuse('it is the whole file system')
  for (const home of userHomes()) if (isInside(real, home)) throw refuse(`it holds the whole home directory ${home}; list the folders the server needs instead`)
  if (isInside(real, homeReal) || isInside(homeReal, real)) throw refuse(`it holds or lies inside the Airlock home ${homeReal} (agents' workspaces, the database)`)
  for (const tree of forbiddenTrees) if (isInside(tree, real) || isInside(real, tree)) throw refuse(`it is part of ${tree}, which no server is given`)
  return real
}

/** The user's home directories as this process knows them (HOME, and the account's entry), real where they exist. */
function userHomes(): string[] {
  const homes = new Set<string>()
  for (const home of [homedir(), safeUserHome()]) {
    if (!home || !isAbsolute(home)) continue
    homes.add(home)
    try {
      homes.add(realpathSync(home))
    } catch {
      // A home that does not exist holds nothing to protect.
    }
  }
  return [...homes]
}

function safeUserHome(): string | undefined {
  try {
    return userInfo().homedir
  } catch {
    return undefined
  }
}

/**
 * The program of a sandboxed server, resolved on the host: absolute as given, or a bare name from
 * the system directories; its real path must lie where the sandbox can see it.
 */
function resolveSandboxedCommand(command: string, readOnly: readonly string[]): string {
  const found = findExecutable(isAbsolute(command) ? [command] : command.includes('/') ? [] : systemPath.split(':').map((dir) => join(dir, command)))
  if (!found) throw new ProviderError('host_tool_missing', `the upstream command ${command} was not found; install it or give its absolute path`)
  const real = realOrRefuse(found, `the upstream command ${command}`)
  const visible = [...systemDirectories.map(realOrSelf), ...readOnly]
  if (!visible.some((dir) => isInside(dir, real))) {
    throw new WorkspaceBoundaryError(`the upstream command ${found}${real === found ? '' : ` (${real})`} is not visible inside the sandbox: add its directory to the server's readOnlyPaths`)
  }
  return found
}

function realOrRefuse(path: string, what: string): string {
  try {
    return realpathSync(path)
  } catch {
    throw new WorkspaceBoundaryError(`${what} (${path}) does not exist`)
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function closeAll(binds: OpenBind[]): void {
  for (const bind of binds.splice(0)) closeSync(bind.fd)
}
