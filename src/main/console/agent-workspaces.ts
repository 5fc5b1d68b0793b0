import { closeSync, lstatSync, mkdirSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { AgentError } from './agent-errors'
import { claimWorkspace, makeDirectoryExclusive, openDirectoryNoFollow, sandboxIdentity, type SandboxIdentity } from '../core'

/** The folders every agent workspace starts with (SPEC §6.2). */
export const workspaceFolders = ['scratch', 'integrations', 'skills'] as const

/** Where removed agents' workspaces are kept, inside the workspaces folder (no agent id starts with a dot). */
export const removedWorkspacesFolder = '.removed'

/**
 * The agents' workspaces under `<home>/workspaces` (SPEC §6.2). The root of each is claimed for
 * the sandbox identity (`claimWorkspace`); its folders are made through descriptors, owned by
 * that identity. A workspace is never handed to a second agent: removing an agent moves its
 * workspace to `.removed/<id>-<timestamp>` (owner-only, out of every sandbox's reach, nothing is
 * deleted), and creating an agent whose folder still exists (a crash between steps, a hand-made
 * folder) moves that folder aside the same way before making a fresh one.
 */
export class AgentWorkspaces {
  constructor(
    private readonly root: string,
    private readonly now: () => Date = () => new Date(),
    private readonly identity: SandboxIdentity = sandboxIdentity()
  ) {}

  /** The real path of an agent's workspace (the workspaces folder resolved, then the id). */
  pathOf(agentId: string): string {
    mkdirSync(this.root, { recursive: true, mode: 0o711 })
    return join(realpathSync(this.root), agentId)
  }

  /**
   * Makes a fresh workspace for a new agent; returns its path and, when a folder of that name was
   * left behind, where it was moved. A failure removes what this call made and throws.
   */
  create(agentId: string): { path: string; movedAside?: string } {
    let path = join(this.root, agentId)
    try {
      path = this.pathOf(agentId)
      const movedAside = this.moveAside(agentId)
      // Only what this call makes is removed on failure: a folder that reappeared is not ours to delete.
      if (exists(path)) throw new Error('it appeared while the workspace was being made; try again')
      try {
        this.build(path)
      } catch (error) {
        rmSync(path, { recursive: true, force: true })
        throw error
      }
      return movedAside ? { path, movedAside } : { path }
    } catch (error) {
      if (error instanceof AgentError) throw error
      throw new AgentError('agent.workspace_unavailable', `Cannot make the workspace ${path}: ${error instanceof Error ? error.message : String(error)}`, {
        agentId
      })
    }
  }

  /** Makes the workspace again if it is gone (deleted by hand); returns its path. Folders inside that exist are left as they are. */
  ensure(agentId: string): string {
    const path = this.pathOf(agentId)
    if (!exists(path)) {
      this.build(path)
      return path
    }
    const rootFd = openDirectoryNoFollow(path)
    try {
      for (const folder of workspaceFolders) {
        if (!exists(join(path, folder))) closeSync(makeDirectoryExclusive(rootFd, folder, this.identity))
      }
    } finally {
      closeSync(rootFd)
    }
    return path
  }

  /** Moves an agent's workspace to `.removed/<id>-<timestamp>`; returns the new path, or undefined when there was none. */
  moveAside(agentId: string): string | undefined {
    const path = this.pathOf(agentId)
    if (!exists(path)) return undefined
    try {
      const removed = join(realpathSync(this.root), removedWorkspacesFolder)
      mkdirSync(removed, { recursive: true, mode: 0o700 })
      const stamp = this.now().toISOString().replace(/[:.]/g, '-')
      let target = join(removed, `${agentId}-${stamp}`)
      for (let n = 2; exists(target); n++) target = join(removed, `${agentId}-${stamp}-${n}`)
      // rename moves the directory entry itself, never what a link inside points to.
      renameSync(path, target)
      // Its upstream servers' state (mcp-state/<agent>, beside the workspaces) goes with it, so an
      // agent made later under the same id does not start its servers on the old one's state.
      const state = join(dirname(realpathSync(this.root)), 'mcp-state', agentId)
      if (exists(state)) renameSync(state, `${target}.mcp-state`)
      return target
    } catch (error) {
      throw new AgentError(
        'agent.workspace_unavailable',
        `Cannot move the workspace ${path} aside: ${error instanceof Error ? error.message : String(error)}`,
        { agentId }
      )
    }
  }

  private build(path: string): void {
    claimWorkspace(path, this.identity)
    const rootFd = openDirectoryNoFollow(path)
    try {
      for (const folder of workspaceFolders) closeSync(makeDirectoryExclusive(rootFd, folder, this.identity))
    } finally {
      closeSync(rootFd)
    }
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}
