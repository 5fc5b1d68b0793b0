import { closeSync, constants, fstatSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { giveTo, openDirectoryNoFollow, sandboxIdentity, writeNewFile } from '../../core'
import { CommandRefusedError } from './command-line'

/** A private git directory for one run, and how to remove it afterwards. */
export type GitDirSnapshot = { path: string; remove(): void }

/** Files git would read settings or another repository from: copied (config, HEAD) or left out. */
const notLinked = new Set(['config', 'config.worktree', 'commondir', 'HEAD'])

/**
 * Builds the git directory a run really uses: a fresh private directory holding a copy of the
 * repository's `config` and `HEAD`, taken once, and links to everything else (objects, refs,
 * index, logs, info, state files). The config that is checked is the config git reads: a
 * process rewriting `.git/config` after the check cannot slip a program in.
 */
export function snapshotGitDir(gitDir: string, linkTarget: string = gitDir): GitDirSnapshot {
  let path: string
  try {
    path = mkdtempSync(join(tmpdir(), `airlock-git-${process.pid}-`))
  } catch (error) {
    throw new CommandRefusedError(`git's private directory could not be created (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  const remove = () => rmSync(path, { recursive: true, force: true })
  try {
    // Read through `gitDir` (a descriptor path, pinned); the links git follows name the real path.
    for (const name of readdirSync(gitDir)) if (!notLinked.has(name)) symlinkSync(join(linkTarget, name), join(path, name))
    // git runs as the sandbox identity (when Airlock is root): the private directory is given to it.
    const identity = sandboxIdentity()
    const dir = openDirectoryNoFollow(path)
    try {
      giveTo(dir, identity)
      for (const name of ['config', 'HEAD']) {
        const content = readRegularFile(join(gitDir, name), `.git/${name}`)
        if (content !== undefined) writeNewFile(dir, name, content, identity)
      }
    } finally {
      closeSync(dir)
    }
    return { path, remove }
  } catch (error) {
    remove()
    if (error instanceof CommandRefusedError) throw error
    throw new CommandRefusedError(`git's private directory could not be prepared (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
}

/** The bytes of a regular file, not following a final symbolic link; undefined when absent. */
function readRegularFile(path: string, shown: string): Buffer | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new CommandRefusedError(
      `${shown} cannot be read as a regular file (${(error as NodeJS.ErrnoException).code}); inspect the repository in a sandbox instead`
    )
  }
  try {
    if (!fstatSync(fd).isFile()) throw new CommandRefusedError(`${shown} is not a regular file; inspect the repository in a sandbox instead`)
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}
