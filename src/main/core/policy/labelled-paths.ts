import { AirlockError } from '@shared/errors'
import { lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Classification } from '@shared/agents'
import type { ClassificationLabelSet } from './classification'

/** How many workspace entries one call's walk may look at before it gives up (and the call is refused). */
export const labelWalkLimit = 50_000

/** The workspace has more entries under a labelled glob's base than one walk looks at. */
export class LabelWalkError extends AirlockError<'policy.label_walk_failed'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('policy.label_walk_failed', message, {}, options)
  }
}

/**
 * The workspace entries labelled above `visible` that exist now, workspace-relative, outermost
 * only (a hidden folder hides what is in it): what a sandbox must not show a call that may read
 * no higher than `visible` (SPEC §6.3, "labelled data is visible only to calls that name it").
 *
 * A label that names a path whole (`secrets`, `secrets/**`) costs one `lstat`; any other glob
 * (`**\/*.pem`, `config/*.key`) walks its static base, never following a link and never into
 * Airlock's own `.airlock/`, and stops with `LabelWalkError` after `labelWalkLimit` entries: a
 * label that cannot be listed is not silently left visible. Links are not hidden (a link
 * resolves inside the sandbox to what it names, which is hidden or not by its own path).
 *
 * Labels follow paths, not content: a copy of labelled bytes under another name, or a hard link
 * made before the label, is that other path's level.
 */
export function labelledEntries(workspace: string, labels: ClassificationLabelSet, visible: Classification): string[] {
  const wanted = labels.pathLabelsAbove(visible)
  if (wanted.length === 0) return []
  const found = new Set<string>()
  const walks = new Map<string, ((path: string) => boolean)[]>()
  for (const label of wanted) {
    if (label.whole) {
      if (label.base !== '' && isEntry(join(workspace, label.base))) found.add(label.base)
      else if (label.base === '') walks.set('', [...(walks.get('') ?? []), () => true])
    } else walks.set(label.base, [...(walks.get(label.base) ?? []), label.match])
  }
  const budget = { left: labelWalkLimit }
  for (const [base, matchers] of walks) walk(workspace, base, matchers, found, budget)
  return outermost(found)
}

/** A directory or a regular file, not a link. */
function isEntry(path: string): boolean {
  try {
    const stat = lstatSync(path)
    return stat.isDirectory() || stat.isFile()
  } catch {
    return false
  }
}

function walk(workspace: string, base: string, matchers: ((path: string) => boolean)[], found: Set<string>, budget: { left: number }): void {
  const pending = [base]
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    let entries
    try {
      entries = readdirSync(join(workspace, folder), { withFileTypes: true })
    } catch {
      continue // absent, not a folder, or unreadable: nothing of it reaches a sandbox either
    }
    for (const entry of entries) {
      if (--budget.left < 0)
        throw new LabelWalkError(
          `a labelled glob's folder has more than ${labelWalkLimit} entries to look through; label a folder whole (e.g. "secrets/**") or narrow the glob`
        )
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`
      if (path === '.airlock') continue
      if (!entry.isDirectory() && !entry.isFile()) continue
      if (matchers.some((match) => match(path))) found.add(path)
      else if (entry.isDirectory()) pending.push(path)
    }
  }
}

/** Drops every path that lies inside another one of the set. */
function outermost(paths: Set<string>): string[] {
  const sorted = [...paths].sort((a, b) => a.length - b.length)
  const kept: string[] = []
  for (const path of sorted) if (!kept.some((outer) => path.startsWith(`${outer}/`))) kept.push(path)
  return kept.sort()
}
