import { existsSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'

/**
 * Whether a project in the workspace has `node_modules/.bin/NAME`, looking from the call's `cwd`
 * up to the workspace root (where `npx NAME` finds it): then `npx NAME` runs the project's own
 * program and fetches nothing. A name that is not a plain file name is never local.
 */
export function localBinIn(workspace: string, cwd: string | undefined): (name: string) => boolean {
  const root = resolve(workspace)
  return (name) => {
    if (!/^[\w.@+-]+$/.test(name) || name === '.' || name === '..') return false
    let dir = resolve(root, cwd ?? '.')
    const rel = relative(root, dir)
    if (rel.startsWith('..') || rel.split(sep).includes('..')) dir = root
    for (let depth = 0; depth < 32; depth++) {
      if (existsSync(join(dir, 'node_modules', '.bin', name))) return true
      if (dir === root) return false
      dir = resolve(dir, '..')
    }
    return false
  }
}
