import { closeSync, lstat, type Stats } from 'node:fs'
import { promisify } from 'node:util'
import type { FileHandle } from 'node:fs/promises'
import { z } from 'zod'
import type { ActionSpec } from '../../core/action-runtime'
import {
  childPath,
  closeWorkspace,
  directoryPathSchema,
  fileActionOutcome,
  hostFolder,
  openChildDirectory,
  openResolvedDirectory,
  openWorkspace,
  pathComponents,
  readDirectory,
  resolveEntry,
  type DirectoryEntry,
  type EntryType
} from '../../files/workspace'

/** The input of `list_directory`: a folder of the workspace (`.` for the workspace itself). */
export const listDirectoryInputSchema = z
  .object({
    path: directoryPathSchema,
    recursive: z.boolean().optional().describe('Also list every folder below, breadth first (names are then paths relative to path).')
  })
  .strict()

/** One listed entry: its name (a relative path when recursive), what it is, and its size in bytes (files; 0 otherwise). */
export type ListedEntry = { name: string; type: EntryType; size: number }

/** What `list_directory` returns: the entries, sorted by name level by level, and whether the bound cut the list. */
export type ListDirectoryData = { entries: ListedEntry[]; truncated: boolean }

/** The most entries one listing returns, and how deep a recursive one goes. */
export const listBounds = { maxEntries: 2000, maxDepth: 64 } as const

const lstatBuffer = promisify(lstat) as (path: Buffer) => Promise<Stats>

/**
 * `list_directory` (SPEC §5.3): the entries of a workspace folder with type (`file`, `directory`,
 * `symlink`, `other`) and size. Recursive listings go breadth first, so a listing cut at
 * `listBounds.maxEntries` still shows the top levels; they never follow links and do not descend
 * into `.git` (it is listed). `.airlock/` (the host's execution areas) is not shown, as inside a
 * sandbox. Folders are opened through descriptors, never through a path the agent can change.
 */
export const listDirectoryAction: ActionSpec<typeof listDirectoryInputSchema> = {
  name: 'list_directory',
  description: `List a folder of your workspace (. for the workspace itself): each entry's name, type (file, directory, symlink, other) and size in bytes. recursive lists everything below, breadth first, up to ${listBounds.maxEntries} entries; truncated says the list was cut.`,
  inputSchema: listDirectoryInputSchema,
  effects: 'read',
  summarize: (input) => `list_directory ${input.path}${input.recursive ? ' (recursive)' : ''}`,
  executor: {
    execute: ({ input, agent, signal }) =>
      fileActionOutcome(async () => {
        const components = pathComponents(input.path, 'directory')
        const root = openWorkspace(agent.workspace)
        try {
          const entry = resolveEntry(root, components, { parents: 'require' })
          let listed: number
          try {
            listed = openResolvedDirectory(entry)
          } finally {
            closeSync(entry.dirFd)
          }
          try {
            return await list(listed, entry.components.length === 0, input.recursive === true, signal)
          } finally {
            closeSync(listed)
          }
        } finally {
          closeWorkspace(root)
        }
      }, signal)
  }
}

async function list(top: number, atWorkspaceRoot: boolean, recursive: boolean, signal: AbortSignal) {
  const entries: ListedEntry[] = []
  const queue: { raw: Buffer[]; prefix: string }[] = [{ raw: [], prefix: '' }]
  let truncated = false
  let badNames = 0
  while (queue.length > 0 && !truncated) {
    signal.throwIfAborted()
    const folder = queue.shift() as { raw: Buffer[]; prefix: string }
    const opened = await reopenBelow(top, folder.raw)
    if (!opened) continue
    try {
      const fd = opened === 'top' ? top : opened.fd
      const children = (await readDirectory(fd)).filter((child) => !(atWorkspaceRoot && folder.raw.length === 0 && child.name === hostFolder))
      const room = listBounds.maxEntries - entries.length
      if (children.length > room) truncated = true
      const kept = children.slice(0, room)
      const sizes = await fileSizes(fd, kept)
      for (const [index, child] of kept.entries()) {
        if (!child.validName) badNames += 1
        entries.push({ name: folder.prefix + child.name, type: child.type, size: sizes[index] ?? 0 })
        if (!recursive || child.type !== 'directory' || child.name === '.git') continue
        if (folder.raw.length + 1 > listBounds.maxDepth) truncated = true
        else queue.push({ raw: [...folder.raw, child.raw], prefix: `${folder.prefix}${child.name}/` })
      }
    } finally {
      if (opened !== 'top') await opened.close()
    }
  }
  const diagnostics: string[] = []
  if (truncated)
    diagnostics.push(`the listing was cut at ${entries.length} entries${recursive ? ` (or ${listBounds.maxDepth} levels)` : ''}; list a subfolder to see more`)
  if (badNames > 0)
    diagnostics.push(`${badNames} name${badNames === 1 ? ' is' : 's are'} not UTF-8 and shown with U+FFFD; such files cannot be named in a path`)
  return { data: { entries, truncated } satisfies ListDirectoryData, diagnostics }
}

/** The sizes of a folder's files (0 for the rest), a few lstat calls at a time. */
async function fileSizes(fd: number, children: readonly DirectoryEntry[]): Promise<number[]> {
  const sizes: number[] = []
  for (let start = 0; start < children.length; start += 64) {
    const batch = children.slice(start, start + 64)
    sizes.push(
      ...(await Promise.all(
        batch.map(async (child) => (child.type === 'file' ? ((await lstatBuffer(childPath(fd, child.raw)).catch(() => undefined))?.size ?? 0) : 0))
      ))
    )
  }
  return sizes
}

/** Opens a folder below the listed one again, one no-follow step at a time; undefined when it changed since it was seen. */
async function reopenBelow(top: number, raw: readonly Buffer[]): Promise<FileHandle | 'top' | undefined> {
  if (raw.length === 0) return 'top'
  let current: FileHandle | undefined
  for (const name of raw) {
    const next: FileHandle | undefined = await openChildDirectory(current?.fd ?? top, name)
    await current?.close()
    if (!next) return undefined
    current = next
  }
  return current
}
