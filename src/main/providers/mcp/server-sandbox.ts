import { closeSync, realpathSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import { isAbsolute, join, relative, sep } from 'node:path'
import { assertReachableBySandbox, assertWritableBySandbox, NoFollowError, openBeneath, openDirectoryNoFollow, type SandboxIdentity } from '../../core'
import type { OpenBind } from '../bubblewrap/sandbox-binds'
import { childEnv, systemPath } from '../runner/run-limits'
import { findExecutable } from '../provider-helpers'
import { ProviderError } from '../../core/provider-error'
import { isInside, WorkspaceBoundaryError } from '../../core/sandbox/workspace-paths'

/**
 * Where a sandboxed stdio MCP server may look, and what it is given (issue 11, SPEC §4):
 *
 * - **State folder**: `<home>/mcp-state/<agent>/<server>/`, made for the sandbox identity and
 *   opened from the home one component at a time without following a link. It is the only
 *   writable directory, the server's HOME and cwd, and it lies **outside the agent's workspace**:
 *   nothing the agent writes may sit on the server's start-up, module or config path (a planted
 *   `~/.local/lib/python3.x/site-packages/usercustomize.py`, a `.pth`, an `.npmrc`, an rc file
 *   would run with the server's secrets and network). No agent sandbox mounts `mcp-state/`.
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
  stateDir: string
  readOnlyPaths: readonly string[]
  env: Record<string, string> | undefined
}

/**
 * Checks what can be checked without touching anything (the program, the read-only paths, the
 * state folder's shape): what a probe runs. Returns the resolved program and the read-only real paths.
 */
export function checkServerSandbox(input: Omit<ServerSandboxInput, 'identity' | 'env'>): { command: string; readOnly: string[]; homeReal: string } {
  const homeReal = realOrRefuse(input.home, 'the Airlock home')
  const readOnly = input.readOnlyPaths.map((path) => checkReadOnlyPath(path, homeReal))
  const command = resolveSandboxedCommand(input.command, readOnly)
  stateParts(homeReal, input.stateDir)
  return { command, readOnly, homeReal }
}

/** Opens the state folder and read-only directories, resolves the program and builds the environment; throws a typed refusal otherwise. */
export function planServerSandbox(input: ServerSandboxInput): ServerSandboxPlan {
  const { command, readOnly, homeReal } = checkServerSandbox(input)
  const binds: OpenBind[] = []
  try {
    const state = openServerState(homeReal, input.stateDir, input.identity)
    binds.push(state)
    for (const path of readOnly) binds.push({ fd: openDirectoryNoFollow(path), dest: path, writable: false })
    const env = childEnv({ PATH: systemPath, HOME: state.dest, LANG: 'C.UTF-8', TMPDIR: '/tmp' }, input.env)
    return { argv: [command, ...input.args], binds, cwd: state.dest, env, close: () => closeAll(binds) }
  } catch (error) {
    closeAll(binds)
    throw error
  }
}

/** The folder under the home that holds every upstream server's state, one `<agent>/<server>` each. */
export const serverStateFolder = 'mcp-state'

/**
 * Opens (making it if needed) a server's state folder `<home>/mcp-state/<agent>/<server>`: the path
 * must be exactly that shape under the real home, no component is followed if it is a link, the
 * folders above it are the host's, and the last is made for (and must be writable by) the sandbox identity.
 * Returns a descriptor for a bind, or to run an unsafe server in.
 */
export function openServerState(homeReal: string, stateDir: string, identity: SandboxIdentity): OpenBind {
  const { agent, server } = stateParts(homeReal, stateDir)
  let fd: number
  try {
    const homeFd = openDirectoryNoFollow(homeReal)
    const agentFd = openBeneath(homeFd, `${serverStateFolder}/${agent}`, { closeBase: true, create: 'host' })
    try {
      fd = openBeneath(agentFd, server, { create: identity })
    } finally {
      closeSync(agentFd)
    }
  } catch (error) {
    // A link on the way keeps its own typed refusal; anything else is said plainly.
    if (error instanceof NoFollowError) throw error
    throw new WorkspaceBoundaryError(`the state folder ${stateDir} cannot be opened or made: ${(error as Error).message}`)
  }
  try {
    // As for a bubblewrap run: a home the sandbox uid cannot search (under /root) is refused with the fix.
    assertReachableBySandbox(stateDir, identity)
    assertWritableBySandbox(fd, stateDir, identity)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  return { fd, dest: stateDir, writable: true }
}

/** The agent and server a state folder names, when it is exactly `<real home>/mcp-state/<agent>/<server>`. */
function stateParts(homeReal: string, stateDir: string): { agent: string; server: string } {
  const parts = isAbsolute(stateDir) ? relative(homeReal, stateDir).split(sep) : []
  const [folder, agent, server] = parts
  if (parts.length !== 3 || folder !== serverStateFolder || !agent || !agentIdPattern.test(agent) || !server || !serverNamePattern.test(server)) {
    throw new WorkspaceBoundaryError(`the state folder ${stateDir} is not <home>/${serverStateFolder}/<agent>/<server> under ${homeReal}`)
  }
  return { agent, server }
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
  if (isInside(real, homeReal) || isInside(homeReal, real))
    throw refuse(`it holds or lies inside the Airlock home ${homeReal} (agents' workspaces, the database)`)
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
    throw new WorkspaceBoundaryError(
      `the upstream command ${found}${real === found ? '' : ` (${real})`} is not visible inside the sandbox: add its directory to the server's readOnlyPaths`
    )
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
