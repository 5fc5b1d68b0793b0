import { closeSync, readSync } from 'node:fs'
import { basename, posix } from 'node:path'
import { openBeneath, openDirectoryNoFollow, openRegularFile } from '../sandbox/no-follow'
import { protectedName } from './protected-names'

/**
 * Risk flags of writing a workspace file (SPEC §6.1), from the protected-name list the command
 * rules share (`./protected-names.ts`): `vcs_write` for anything under `.git/` or `.github/` (and
 * `.gitmodules`, `.gitattributes`, which make git run programs), `config_write` for environment and
 * shell start-up files and package-manager credentials. A `package.json` is flagged only when its
 * `scripts` change (`packageScriptsChange`; scripts run on `npm install`/`npm test`, other edits are
 * ordinary work), so it is left out here.
 */
export function fileWriteRisks(path: string): ('vcs_write' | 'config_write')[] {
  const parts = posix
    .normalize(path.replace(/\\/g, '/'))
    .split('/')
    .filter((part) => part !== '' && part !== '.')
  const hit = protectedName(parts)
  return hit && hit.name !== 'package.json' ? [hit.kind] : []
}

/** True when a path names a `package.json` (in any case: a macOS workspace ignores it). */
export function isPackageManifest(path: string): boolean {
  return basename(path.replace(/\\/g, '/')).toLowerCase() === 'package.json'
}

/**
 * True when `next` over a package.json whose text is `current` (`readSmallFile`) changes its
 * `scripts` (or when either side is not JSON: unknown counts as changed).
 */
export function packageScriptsChange(current: string | undefined, next: string): boolean {
  // A new manifest (or one that cannot be read) changes scripts unless it plainly has none.
  if (current === undefined) return scriptsOf(next) !== '{}'
  const before = scriptsOf(current)
  const after = scriptsOf(next)
  return before === undefined || after === undefined ? true : before !== after
}

/**
 * The current text of a small workspace file, or undefined (missing, reached through a symlink on
 * any component, not a regular file, too big). Walked on descriptors: the sandbox wrote this tree.
 */
export function readSmallFile(workspace: string, path: string, maxBytes = 1024 * 1024): string | undefined {
  let dirFd: number | undefined
  let fd: number | undefined
  try {
    const parts = posix
      .normalize(path.replace(/\\/g, '/'))
      .split('/')
      .filter((part) => part !== '' && part !== '.')
    const name = parts.pop()
    if (!name || parts.includes('..') || name === '..') return undefined
    dirFd = openBeneath(openDirectoryNoFollow(workspace), parts.join('/'), { closeBase: true })
    const file = openRegularFile(dirFd, name)
    fd = file.fd
    if (file.stat.size > maxBytes) return undefined
    const buffer = Buffer.alloc(file.stat.size)
    let read = 0
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read)
      if (n === 0) break
      read += n
    }
    return buffer.subarray(0, read).toString('utf8')
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
    if (dirFd !== undefined) closeSync(dirFd)
  }
}

/** `scripts` of a package.json text as canonical JSON; `'{}'` when it has none; undefined when not JSON. */
function scriptsOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as { scripts?: unknown }
    return JSON.stringify(parsed?.scripts ?? {})
  } catch {
    return undefined
  }
}
