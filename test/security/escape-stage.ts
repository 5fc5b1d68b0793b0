import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { claimWorkspace } from '../../src/main/core'
import { makeTempDir } from '../support/temp-home'

/** The stage of an escape corpus: a claimed workspace, and beside it (outside) a directory holding a secret. */
export type EscapeStage = { dir: ReturnType<typeof makeTempDir>; workspace: string; outside: string }

/** Builds a fresh stage where the sandbox uid can reach the workspace (see `sandboxTestBase`). */
export function makeEscapeStage(prefix: string): EscapeStage {
  const dir = makeTempDir(prefix, { outsideTmp: true })
  const stage = { dir, workspace: join(dir.path, 'workspace'), outside: join(dir.path, 'outside') }
  claimWorkspace(stage.workspace)
  mkdirSync(stage.outside)
  writeFileSync(join(stage.outside, 'secret.txt'), 'host secret')
  return stage
}
