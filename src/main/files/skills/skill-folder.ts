import { isUtf8 } from 'node:buffer'
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { bundlePathSchema } from '@shared/code-execution'
import { descriptorPath } from '../../core/sandbox'
import { closeWorkspace, openWorkspace, readAt } from '../workspace'
import { skillLimits, skillsFolder, type SkillFile } from './skill-content'
import { SkillError } from './skill-error'

/**
 * Reads a skill's folder `skills/<name>/` of an agent's workspace into memory, once. The workspace
 * is written by the agent's sandboxed code at any moment, so the reader trusts nothing there: no
 * symbolic link is followed anywhere (not `skills`, not the folder, not inside it: one is a
 * refusal, not a detour), every step opens one name below a directory already held open with
 * O_NOFOLLOW, only regular files with a single link are read (no FIFO, device or hard link to a
 * file elsewhere), and sizes, counts and depth are bounded before and while reading. What it
 * returns is the bytes that will be hashed and, if approved, run: nothing is read again.
 */
export async function readSkillFolder(workspace: string, name: string, signal?: AbortSignal): Promise<SkillFile[]> {
  const root = openWorkspace(workspace)
  try {
    const skills = openFolder(root.fd, skillsFolder, skillsFolder)
    let folder: number
    try {
      folder = openFolder(skills, name, `${skillsFolder}/${name}`)
    } finally {
      closeSync(skills)
    }
    try {
      const files: SkillFile[] = []
      await readTree(folder, [], { files, total: 0, name, signal })
      return files
    } finally {
      closeSync(folder)
    }
  } finally {
    closeWorkspace(root)
  }
}

type Walk = { files: SkillFile[]; total: number; name: string; signal?: AbortSignal }

const folderFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW

async function readTree(fd: number, prefix: string[], walk: Walk): Promise<void> {
  walk.signal?.throwIfAborted()
  const names = (await readdir(descriptorPath(fd), { encoding: 'buffer' })).sort(Buffer.compare)
  for (const raw of names) {
    const shown = `${skillsFolder}/${walk.name}/${[...prefix, raw.toString('utf8')].join('/')}`
    if (!isUtf8(raw)) throw new SkillError('invalid_files', `${shown}: a file name that is not UTF-8; skill files need UTF-8 names.`, { path: shown })
    const path = [...prefix, raw.toString('utf8')].join('/')
    const problem = bundlePathSchema.safeParse(path)
    if (!problem.success) throw new SkillError('invalid_files', `${shown}: ${problem.error.issues[0]?.message ?? 'not a valid path'}.`, { path: shown })
    const at = `${descriptorPath(fd)}/${raw.toString('utf8')}`
    const stat = lstatOrChanged(at, shown)
    if (stat.isSymbolicLink()) throw unsafe(shown, 'is a symbolic link; skill files must be regular files inside the skill folder')
    if (stat.isDirectory()) {
      if (prefix.length + 1 >= skillLimits.maxDepth)
        throw new SkillError('too_large', `${shown}: folders nest deeper than ${skillLimits.maxDepth} levels.`, { path: shown })
      const child = openFolder(fd, raw.toString('utf8'), shown)
      try {
        await readTree(child, [...prefix, raw.toString('utf8')], walk)
      } finally {
        closeSync(child)
      }
      continue
    }
    if (!stat.isFile()) throw unsafe(shown, 'is not a regular file (a FIFO, socket or device)')
    if (walk.files.length + 1 > skillLimits.maxFiles)
      throw new SkillError('too_large', `${skillsFolder}/${walk.name} holds more than ${skillLimits.maxFiles} files.`, { limit: skillLimits.maxFiles })
    const bytes = await readFile(fd, raw.toString('utf8'), shown, skillLimits.maxTotalBytes - walk.total)
    walk.total += bytes.length
    walk.files.push({ path, bytes })
  }
}

/** Opens folder `name` below `dirFd` (O_NOFOLLOW), refusing a link or anything that is not a folder (`shown` names it in messages). */
export function openFolder(dirFd: number, name: string, shown: string): number {
  const at = `${descriptorPath(dirFd)}/${name}`
  let stat: Stats
  try {
    stat = lstatSync(at)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new SkillError('not_found', `${shown} does not exist: there is no such skill. Save one with persist_skill.`, { path: shown })
    throw error
  }
  if (stat.isSymbolicLink()) throw unsafe(shown, 'is a symbolic link; a skill folder must be a real folder')
  if (!stat.isDirectory()) throw unsafe(shown, 'is not a folder')
  try {
    return openSync(at, folderFlags)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') throw unsafe(shown, 'changed while Airlock read it')
    throw error
  }
}

/** Reads one regular file whole (no-follow, non-blocking open), bounded by the per-file limit and what is left of the total. */
async function readFile(dirFd: number, name: string, shown: string, totalLeft: number): Promise<Buffer> {
  let fd: number
  try {
    fd = openSync(`${descriptorPath(dirFd)}/${name}`, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'ENOENT') throw unsafe(shown, 'changed while Airlock read it')
    throw error
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw unsafe(shown, 'is not a regular file')
    if (stat.nlink > 1) throw unsafe(shown, `has ${stat.nlink} hard links; it may be a file outside the workspace`)
    if (stat.size > skillLimits.maxFileBytes)
      throw new SkillError('too_large', `${shown} is ${stat.size} bytes; a skill file may have at most ${skillLimits.maxFileBytes}.`, {
        path: shown,
        bytes: stat.size,
        limit: skillLimits.maxFileBytes
      })
    if (stat.size > totalLeft)
      throw new SkillError('too_large', `the files of the skill add up to more than ${skillLimits.maxTotalBytes} bytes.`, {
        path: shown,
        limit: skillLimits.maxTotalBytes
      })
    // One byte more than fstat said: a file that grows while it is read is refused, not read in part.
    const bytes = await readAt(fd, stat.size + 1, 0)
    if (bytes.length !== stat.size) throw unsafe(shown, 'changed while Airlock read it')
    return bytes
  } finally {
    closeSync(fd)
  }
}

function lstatOrChanged(at: string, shown: string): Stats {
  try {
    return lstatSync(at)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw unsafe(shown, 'changed while Airlock read it')
    throw error
  }
}

function unsafe(shown: string, why: string): SkillError {
  return new SkillError('unsafe_file', `${shown} ${why}; refused.`, { path: shown })
}
