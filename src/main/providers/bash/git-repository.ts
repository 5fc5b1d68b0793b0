import { closeSync, existsSync, lstatSync, readdirSync, realpathSync, type Stats } from 'node:fs'
import { descriptorPath, NoFollowError, openBeneath, openChildDirectory, openDirectoryNoFollow } from '../../core'
import { dirname, join, relative } from 'node:path'
import { isInside } from '../../core/sandbox/workspace-paths'
import { CommandRefusedError } from './command-line'
import { refuseUnsafeGitConfig } from './git-config-rule'
import { snapshotGitDir } from './git-dir-snapshot'

/**
 * The one repository git may use for a command: a private git directory built from the
 * workspace's own `.git` (see `snapshotGitDir`), the work tree holding it, and the clean-up.
 */
export type WorkspaceRepository = { gitDir: string; workTree: string; remove(): void }

const sandboxHint = 'inspect it in a sandbox instead'

/**
 * Finds the repository for `cwd` the way git would, but only inside the workspace root holding
 * it (never above), and admits it only when it is a plain `.git` directory whose objects, refs
 * and config all stay inside the workspace and whose config (git's own parse of the snapshot
 * git will read) holds only known data keys.
 */
export async function admitWorkspaceRepository(cwd: string, roots: readonly string[], gitProgram: string): Promise<WorkspaceRepository> {
  const root = roots.find((candidate) => isInside(candidate, cwd))
  if (root === undefined) throw new CommandRefusedError('the working directory is outside the workspace')
  // Airlock may be root and the workspace is hostile: every step goes through descriptors opened
  // without following links, so a `.git` swapped for a symlink after a check is never read through.
  const { workTree, gitFd } = withNoFollowRefusal(() => openRepositoryDirectory(root, cwd))
  try {
    const gitDir = descriptorPath(gitFd)
    refuseBorrowedStorage(gitDir)
    refuseLinksOut(gitDir, roots)
    const snapshot = snapshotGitDir(gitDir, join(workTree, '.git'))
    try {
      if (existsSync(join(snapshot.path, 'config'))) await refuseUnsafeGitConfig(gitProgram, join(snapshot.path, 'config'))
    } catch (error) {
      snapshot.remove()
      throw error
    }
    return { gitDir: snapshot.path, workTree, remove: snapshot.remove }
  } finally {
    closeSync(gitFd)
  }
}

/** Finds `.git` from `cwd` up to `root` (never above) and opens it, walking from the root's descriptor. */
function openRepositoryDirectory(root: string, cwd: string): { workTree: string; gitFd: number } {
  const rootFd = openDirectoryNoFollow(root)
  try {
    for (let workTree = cwd; ; workTree = dirname(workTree)) {
      const dirFd = openBeneath(rootFd, relative(root, workTree))
      try {
        const entry = lstatOrUndefined(`${descriptorPath(dirFd)}/.git`)
        if (entry) {
          refuseUnusualDotGit(entry, relative(root, join(workTree, '.git')) || '.git')
          return { workTree, gitFd: openChildDirectory(dirFd, '.git') }
        }
      } finally {
        closeSync(dirFd)
      }
      if (workTree === root) throw new CommandRefusedError('there is no git repository inside the workspace (the host runner never uses one above it)')
    }
  } finally {
    closeSync(rootFd)
  }
}

/** A path that crossed a link on the way is refused like any other unsafe repository. */
function withNoFollowRefusal<T>(open: () => T): T {
  try {
    return open()
  } catch (error) {
    if (error instanceof NoFollowError) throw new CommandRefusedError(`${error.message}; ${sandboxHint}`)
    throw error
  }
}

function refuseUnusualDotGit(entry: Stats, shown: string): void {
  if (entry.isSymbolicLink()) throw new CommandRefusedError(`${shown} is a symbolic link; the host runner only reads a repository's own .git directory`)
  if (entry.isFile()) {
    throw new CommandRefusedError(
      `${shown} is a file (gitdir: pointing elsewhere, as worktrees and submodules use); the host runner only reads a repository's own .git directory`
    )
  }
  if (!entry.isDirectory()) throw new CommandRefusedError(`${shown} is not a directory`)
}

/** A repository that takes its refs, objects or config from another one reads outside the workspace. */
function refuseBorrowedStorage(gitDir: string): void {
  if (lstatOrUndefined(join(gitDir, 'commondir'))) {
    throw new CommandRefusedError(`this repository shares another repository's refs, objects and config (.git/commondir); ${sandboxHint}`)
  }
  for (const name of ['alternates', 'http-alternates']) {
    const file = lstatOrUndefined(join(gitDir, 'objects', 'info', name))
    if (file && file.size > 0) throw new CommandRefusedError(`this repository borrows objects from another store (.git/objects/info/${name}); ${sandboxHint}`)
  }
}

/** Every symbolic link under the git directory must lead inside the workspace (git follows them all). */
function refuseLinksOut(gitDir: string, roots: readonly string[]): void {
  let entries
  try {
    entries = readdirSync(gitDir, { withFileTypes: true, recursive: true })
  } catch (error) {
    throw new CommandRefusedError(`the .git directory cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}); ${sandboxHint}`)
  }
  for (const entry of entries) {
    if (!entry.isSymbolicLink()) continue
    const path = join(entry.parentPath, entry.name)
    const shown = `.git/${relative(gitDir, path)}`
    let target: string
    try {
      target = realpathSync.native(path)
    } catch {
      throw new CommandRefusedError(`${shown} is a symbolic link that points nowhere; ${sandboxHint}`)
    }
    if (!roots.some((root) => isInside(root, target)))
      throw new CommandRefusedError(`${shown} is a symbolic link to ${target}, outside the workspace; ${sandboxHint}`)
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}
