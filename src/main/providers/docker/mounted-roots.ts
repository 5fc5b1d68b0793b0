import { closeSync, fstatSync, type Stats } from 'node:fs'
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { assertWritableBySandbox, openBeneath, openDirectoryNoFollow, type SandboxIdentity } from '../../core'
import { DockerProviderError } from './docker-errors'

/** A workspace root bound into a container at its own path, held open so what was bound can be proven. */
export type MountedRoot = { path: string; fd: number; dev: number; ino: number }

/**
 * Opens the roots a container will bind (real paths, resolved once by the caller) without following
 * a symlink on any component, and refuses one the sandbox identity cannot write, with the fix.
 * The exception is the folder of execution areas the host keeps (`<workspace>/.airlock/executions`,
 * root-owned when sandboxes have their own uid): runs write only their own areas in it, which
 * `proveRunRoot` checks per run, so here it need only be searchable.
 * The descriptors stay open for the container's life; `closeRoots` ends them.
 */
export function openMountedRoots(roots: readonly string[], identity: SandboxIdentity): MountedRoot[] {
  const opened: MountedRoot[] = []
  try {
    for (const path of roots) {
      const fd = refusedAs(path, () => openDirectoryNoFollow(path))
      const stat = fstatSync(fd)
      opened.push({ path, fd, dev: stat.dev, ino: stat.ino })
      if (isHostKeptAreas(path)) assertSearchable(stat, path, identity)
      else refusedAs(path, () => assertWritableBySandbox(fd, path, identity))
    }
    return opened
  } catch (error) {
    closeRoots(opened)
    throw error
  }
}

/** Closes the descriptors of mounted roots. */
export function closeRoots(roots: readonly MountedRoot[]): void {
  for (const root of roots) {
    try {
      closeSync(root.fd)
    } catch {
      // already closed
    }
  }
}

/** The in-container command that prints device and inode of each root (as `stat` does: `<dev> <ino>` per line). */
export function identityProbeArgv(roots: readonly MountedRoot[]): string[] {
  return ['stat', '-c', '%d %i', '--', ...roots.map((root) => root.path)]
}

/**
 * Compares what the container sees at each root's path with the directory that was opened and
 * checked before the container was created: Docker binds by path, so a root swapped for a link
 * in between would otherwise bind whatever the link named. Throws `docker.mount_mismatch`.
 */
export function assertSameDirectories(roots: readonly MountedRoot[], probe: { exitCode: number; stdout: string; stderr: string }): void {
  const seen = probe.stdout.trim().split('\n')
  roots.forEach((root, index) => {
    const expected = `${root.dev} ${root.ino}`
    if (probe.exitCode !== 0 || seen[index]?.trim() !== expected) {
      throw new DockerProviderError(
        'docker.mount_mismatch',
        `The container does not see the workspace root ${root.path} that Airlock checked (expected device/inode ${expected}, the container saw ${seen[index]?.trim() || probe.stderr.trim() || 'nothing'}). It was removed; the root may have been replaced while the container started.`,
        { root: root.path }
      )
    }
  })
}

/**
 * Proves a run's extra writable root lies inside a mounted root by walking to it from the root's
 * descriptor (no symlink on any component) and that the sandbox identity can write it. Returns
 * the path, which means the same inside the container (roots are bound at their own paths).
 */
export function proveRunRoot(roots: readonly MountedRoot[], path: string, identity: SandboxIdentity): string {
  if (!isAbsolute(path) || path.includes('\0'))
    throw new DockerProviderError('docker.workspace_refused', `The run root ${JSON.stringify(path)} is not an absolute path.`)
  const wanted = resolve(path)
  const root = roots.find((candidate) => isLexicallyInside(candidate.path, wanted))
  if (!root) {
    throw new DockerProviderError(
      'docker.workspace_refused',
      `The run root ${wanted} is not inside a workspace root of this container (${roots.map((r) => r.path).join(', ')}).`,
      { root: wanted }
    )
  }
  const fd = refusedAs(wanted, () => openBeneath(root.fd, relative(root.path, wanted)))
  try {
    refusedAs(wanted, () => assertWritableBySandbox(fd, wanted, identity))
  } finally {
    closeSync(fd)
  }
  return wanted
}

/** True when `path` is `root` or below it, comparing normalised strings (no filesystem access). */
export function isLexicallyInside(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

/** The execution areas' folder the core keeps for the host inside a workspace (see `ensureExecutionsFolder`). */
export function isHostKeptAreas(path: string): boolean {
  return basename(path) === 'executions' && basename(dirname(path)) === '.airlock'
}

/** Refuses a root the sandbox identity cannot even search (its runs' areas inside would be unreachable). */
function assertSearchable(stat: Stats, path: string, identity: SandboxIdentity): void {
  const bit = stat.uid === identity.uid ? 0o100 : stat.gid === identity.gid ? 0o010 : 0o001
  if ((stat.mode & bit) === 0) {
    throw new DockerProviderError(
      'docker.workspace_refused',
      `The folder ${path} is mode ${(stat.mode & 0o777).toString(8)}: sandboxed code (uid ${identity.uid}) cannot reach the execution areas in it.`,
      { root: path }
    )
  }
}

/** Re-throws the core's refusals (links, unwritable roots, missing directories) as the provider's typed error. */
function refusedAs<T>(path: string, action: () => T): T {
  try {
    return action()
  } catch (error) {
    if (error instanceof DockerProviderError) throw error
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === 'ENOENT' ? 'it does not exist' : (error as Error).message
    throw new DockerProviderError(
      'docker.workspace_refused',
      `The workspace root ${path} was refused: ${reason}`,
      { root: path, errno: code },
      { cause: error }
    )
  }
}
