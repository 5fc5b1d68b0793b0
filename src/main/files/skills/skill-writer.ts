import { closeSync, lstatSync, rmdirSync, unlinkSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { descriptorPath, sandboxIdentity } from '../../core/sandbox'
import { assertPlainFile, assertWithinQuota, closeWorkspace, joinComponents, openWorkspace, replaceFile, resolveEntry, type WorkspaceRoot } from '../workspace'
import { skillLimits, skillsFolder, type SkillFile } from './skill-content'
import { SkillError } from './skill-error'
import { openFolder } from './skill-folder'

/**
 * Writes a skill's files into `skills/<name>/` of the agent's workspace through the write path of
 * `write_file` (race-safe resolution, atomic replace, files given to the sandbox identity, the
 * disk quota checked first), then removes whatever else the folder held, so the folder is exactly
 * the content just recorded. A path that leads through a symbolic link is refused, not followed
 * somewhere else in the workspace: skill files are read back with no link followed at all.
 */
export async function writeSkillFolder(input: {
  workspace: string
  diskMb: number
  name: string
  files: readonly SkillFile[]
  signal?: AbortSignal
}): Promise<void> {
  const root = openWorkspace(input.workspace)
  try {
    const paths = input.files.map((file) => [skillsFolder, input.name, ...file.path.split('/')])
    let existing = 0
    for (const components of paths) existing += look(root, components)
    const adding = input.files.reduce((sum, file) => sum + file.bytes.length, 0)
    await assertWithinQuota(input.workspace, input.diskMb, adding - existing, { signal: input.signal })
    const owner = sandboxIdentity()
    for (const [index, components] of paths.entries()) {
      input.signal?.throwIfAborted()
      const entry = resolveEntry(root, components, { parents: 'create', owner })
      try {
        const name = assertSameFile(entry.components, components, entry.name)
        if (entry.stat) assertPlainFile(entry.stat, entry.components)
        replaceFile(entry.dirFd, name, (input.files[index] as SkillFile).bytes, {
          mode: entry.stat ? entry.stat.mode : 0o644,
          owner,
          components: entry.components
        })
      } finally {
        closeSync(entry.dirFd)
      }
    }
    const skills = openFolder(root.fd, skillsFolder, skillsFolder)
    try {
      const folder = openFolder(skills, input.name, `${skillsFolder}/${input.name}`)
      try {
        await removeOthers(folder, [], new Set(input.files.map((file) => file.path)))
      } finally {
        closeSync(folder)
      }
    } finally {
      closeSync(skills)
    }
  } finally {
    closeWorkspace(root)
  }
}

/** The size of what is at a path now (0 when nothing), refusing a path through a link or onto a file that may not be replaced. */
function look(root: WorkspaceRoot, components: string[]): number {
  const entry = resolveEntry(root, components, { parents: 'stop' })
  try {
    if (!entry.stat) return 0
    assertSameFile(entry.components, components, entry.name)
    assertPlainFile(entry.stat, entry.components)
    return entry.stat.size
  } finally {
    closeSync(entry.dirFd)
  }
}

function assertSameFile(real: readonly string[], wanted: readonly string[], name: string | undefined): string {
  const path = joinComponents(wanted)
  if (name === undefined || joinComponents(real) !== path) {
    throw new SkillError(
      'unsafe_file',
      `${path} leads through a symbolic link (to ${joinComponents(real)}); skill files must be regular files inside skills/. Remove the link and save again.`,
      { path }
    )
  }
  return name
}

/** Unlinks every entry of the folder that is not a kept file (links are removed, never followed); folders left empty go too. */
async function removeOthers(fd: number, prefix: string[], keep: ReadonlySet<string>): Promise<void> {
  const names = await readdir(descriptorPath(fd), { encoding: 'buffer' })
  for (const raw of names) {
    const at = Buffer.concat([Buffer.from(`${descriptorPath(fd)}/`), raw])
    const path = [...prefix, raw.toString('utf8')].join('/')
    const stat = lstatSync(at, { throwIfNoEntry: false })
    if (!stat) continue
    if (stat.isDirectory() && prefix.length + 1 < skillLimits.maxDepth) {
      const child = openFolder(fd, raw.toString('utf8'), path)
      try {
        await removeOthers(child, [...prefix, raw.toString('utf8')], keep)
      } finally {
        closeSync(child)
      }
      if (![...keep].some((kept) => kept.startsWith(`${path}/`))) removeEmptyFolder(at)
      continue
    }
    if (!stat.isDirectory() && !keep.has(path)) unlinkSync(at)
  }
}

/** Removes a folder that should be empty; one the agent filled meanwhile stays (the next read sees it). */
function removeEmptyFolder(at: Buffer): void {
  try {
    rmdirSync(at)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
