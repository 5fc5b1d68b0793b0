import { closeSync } from 'node:fs'
import { dirname, resolve, sep } from 'node:path'
import { isExecutionsFolder, openDirectoryNoFollow, openHostDirectory } from '../../core'
import { isInside, WorkspaceBoundaryError } from '../../core/sandbox/workspace-paths'

/** An open directory to bind into a sandbox at `dest` (its host path); a workspace bound whole hides its `.airlock/`. */
export type OpenBind = { fd: number; dest: string; writable: boolean; masksAirlock?: boolean }

/**
 * Makes sure a workspace bound whole has its host-kept `.airlock/` (root's, when sandboxes have
 * their own uid) before the sandbox starts: bwrap mounts the mask over it, and must not create it
 * as the sandbox's own directory.
 */
function withAirlockMask(bind: OpenBind): OpenBind {
  if (isInsideAirlock(bind.dest)) return bind
  closeSync(openHostDirectory(bind.fd, '.airlock'))
  return { ...bind, masksAirlock: true }
}

/** True for a path inside a workspace's `.airlock/` (an executions folder or an area): nothing to hide there. */
function isInsideAirlock(path: string): boolean {
  return path.split(sep).includes('.airlock')
}

/**
 * Opens the handle's workspace roots (real paths the operator's policy named) as descriptors,
 * refusing a symlink on any component: the sandbox is bound to these very directories for the
 * handle's life, whatever happens to their paths later.
 */
export function openHandleRoots(roots: readonly string[]): OpenBind[] {
  const opened: OpenBind[] = []
  try {
    for (const root of roots) opened.push(withAirlockMask({ fd: openDirectoryNoFollow(root), dest: root, writable: true }))
    return opened
  } catch (error) {
    for (const bind of opened) closeSync(bind.fd)
    throw error
  }
}

/**
 * Where a run's extra roots may lie: inside a handle root, or (for a task's read-only or
 * read-write grant) the agent workspace a handle root belongs to — the directory holding its
 * `.airlock/executions`. Nothing else: a caller cannot widen the sandbox past its handle.
 */
function anchorsOf(roots: readonly string[]): { inside: readonly string[]; workspaces: string[] } {
  return { inside: roots, workspaces: roots.filter(isExecutionsFolder).map((root) => dirname(dirname(root))) }
}

/**
 * Opens a run's extra roots (an execution area, a granted workspace) after checking they lie
 * where `anchorsOf` allows, walking every component without following a symlink: a link the
 * sandbox planted, or a directory it swapped for one (RENAME_EXCHANGE) after the caller's check,
 * is refused rather than bound.
 */
export function openRunBinds(roots: readonly string[], writableRoots: readonly string[], readOnlyRoots: readonly string[]): OpenBind[] {
  const anchors = anchorsOf(roots)
  const wanted = [
    ...writableRoots.map((path) => ({ path: resolve(path), writable: true })),
    ...readOnlyRoots.map((path) => ({ path: resolve(path), writable: false }))
  ]
  const opened: OpenBind[] = []
  try {
    for (const { path, writable } of wanted) {
      if (!anchors.inside.some((root) => isInside(root, path)) && !anchors.workspaces.includes(path)) {
        throw new WorkspaceBoundaryError(`${path} is outside this sandbox's workspace and cannot be bound into a run`)
      }
      opened.push(withAirlockMask({ fd: openDirectoryNoFollow(path), dest: path, writable }))
    }
    return opened
  } catch (error) {
    for (const bind of opened) closeSync(bind.fd)
    throw error
  }
}
