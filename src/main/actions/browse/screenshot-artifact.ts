import { createHash } from 'node:crypto'
import { closeSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { ensureExecutionsFolder, makeDirectoryExclusive, openDirectoryNoFollow, sandboxIdentity, writeNewFile, type ActionArtifact } from '../../core'

/** The file name of a browse call's screenshot inside its execution area's `output/`. */
export const screenshotName = 'screenshot.png'

/**
 * Writes a browse call's screenshot to `<workspace>/.airlock/executions/<callId>/output/screenshot.png`
 * and describes it as an artifact. The execution area is the call's own (created exclusively,
 * never reused), kept by the host like a code run's outputs (sandboxes cannot rename or replace
 * what is there), and written through directory descriptors without following any link.
 */
export function writeScreenshot(workspace: string, callId: string, png: Uint8Array): ActionArtifact {
  const owner = sandboxIdentity()
  const executions = openDirectoryNoFollow(ensureExecutionsFolder(workspace, owner))
  let area: number
  try {
    area = makeDirectoryExclusive(executions, callId, owner)
  } finally {
    closeSync(executions)
  }
  try {
    const output = makeDirectoryExclusive(area, 'output', owner)
    try {
      writeNewFile(output, screenshotName, png, owner)
    } finally {
      closeSync(output)
    }
  } finally {
    closeSync(area)
  }
  return {
    name: screenshotName,
    path: join(realpathSync(workspace), '.airlock', 'executions', callId, 'output', screenshotName),
    bytes: png.byteLength,
    sha256: createHash('sha256').update(png).digest('hex'),
    mediaType: 'image/png'
  }
}
