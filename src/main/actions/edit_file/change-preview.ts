import { closeSync } from 'node:fs'
import {
  closeWorkspace,
  joinComponents,
  openWorkspace,
  openWorkspaceFile,
  pathComponents,
  readWhole,
  WorkspaceFileError,
  type OpenedFile
} from '../../files/workspace'
import { replacementDiff } from './unified-diff'

/** The largest file a preview reads: a bigger one is shown to the operator without a diff. */
const maxPreviewSourceBytes = 2 * 1024 * 1024

/** The largest preview returned; the queue shows a longer one cut. */
const maxPreviewBytes = 64 * 1024

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * The unified diff a file tool would make, for the operator deciding whether it may (the approval
 * queue's preview): `write_file` replaces the whole file (a new file is all additions), `edit_file`
 * replaces `oldText`. Read through the same guarded workspace opening the tools use (never through
 * a link out of the workspace); nothing is written. Undefined when there is nothing sensible to show
 * (not text, too large, the edit would not apply).
 */
export async function previewFileChange(
  workspace: string,
  path: string,
  change: { content: string } | { oldText: string; newText: string; replaceAll?: boolean }
): Promise<string | undefined> {
  const components = pathComponents(path, 'file')
  const root = openWorkspace(workspace)
  try {
    let before = ''
    let file: OpenedFile | undefined
    try {
      file = openWorkspaceFile(root, components)
    } catch (error) {
      // A file (or folder) that does not exist yet: all of it is new.
      if (!(error instanceof WorkspaceFileError && error.reason === 'not_found')) return undefined
    }
    if (file) {
      try {
        before = strictUtf8.decode(await readWhole(file.fd, file.stat, maxPreviewSourceBytes, file.entry.components))
      } catch {
        return undefined
      } finally {
        closeSync(file.fd)
        closeSync(file.entry.dirFd)
      }
      if (before.includes('\0')) return undefined
    }
    const name = joinComponents(components)
    if ('content' in change) return bounded(replacementDiff(name, before, [0], before.length, change.content))
    const positions: number[] = []
    for (let at = before.indexOf(change.oldText); at >= 0; at = before.indexOf(change.oldText, at + change.oldText.length)) positions.push(at)
    if (positions.length === 0 || (positions.length > 1 && change.replaceAll !== true)) return undefined
    return bounded(replacementDiff(name, before, positions, change.oldText.length, change.newText))
  } catch {
    return undefined
  } finally {
    closeWorkspace(root)
  }
}

function bounded(diff: string): string {
  if (diff.length <= maxPreviewBytes) return diff
  const kept = diff.slice(0, diff.lastIndexOf('\n', maxPreviewBytes) + 1)
  return `${kept}... preview cut: ${diff.length - kept.length} more characters not shown\n`
}
