import { existsSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { ExecutionResourceManager, type CommandResult, type CommandRunner } from '../../src/main/core'
import { BashProvider } from '../../src/main/providers/bash'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { makeTempDir } from '../support/temp-home'
import { cases } from './host-runner-cases'
import { hostShadowLine, makeScene, secretText } from './host-runner-fixtures'

// The host runner's rows of the security corpus (TESTING.md): each case runs through the real
// BashProvider, obtained from the manager the way an action gets it, as the user CI runs as.
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const shadowLine = hostShadowLine()

const sandbox = await checkBubblewrapHost()
const noSandbox = skipReasonFor("bubblewrap (the host runner's read-only sandbox)", { available: sandbox.ok, reason: sandbox.ok ? '' : sandbox.reason })

describe('security corpus: host runner (bash provider)', () => {
  for (const c of cases) {
    it.skipIf(c.needsSandbox && noSandbox !== undefined)(`${c.id}: ${c.attack}${c.needsSandbox && noSandbox ? ` (skipped: ${noSandbox})` : ''}`, async () => {
      const temp = makeTempDir('host-runner-', { outsideTmp: true })
      cleanups.push(() => temp.remove())
      const scene = makeScene(temp.path)
      c.setup?.(scene)
      const manager = new ExecutionResourceManager().registerProvider(new BashProvider())
      cleanups.push(() => manager.releaseAll())
      const handle = await manager.ensure({
        kind: 'bash',
        providerId: 'bash',
        policy: { workspaceRoots: [scene.ws], timeoutSeconds: 10, maxOutputBytes: 65536 }
      })
      const runner = handle.resource as CommandRunner

      const outcome = await runner.run({ command: c.command, env: c.env?.(scene) }).then(
        (result): { result: CommandResult; error?: undefined } => ({ result }),
        (error: unknown) => ({ error: error as Error & { code?: string }, result: undefined })
      )

      // The host is unchanged: no hostile program ran, nothing outside reached the caller.
      expect(existsSync(scene.marker), 'a hostile program ran (its marker exists)').toBe(false)
      const seen = [outcome.result?.stdout, outcome.result?.stderr, outcome.error?.message].join('\n')
      expect(seen).not.toContain(secretText)
      if (shadowLine) expect(seen).not.toContain(shadowLine)

      if ('refused' in c.expect) {
        expect(outcome.result, `ran instead of being refused: ${JSON.stringify(outcome.result)}`).toBeUndefined()
        expect(outcome.error).toMatchObject({ name: 'CommandRefusedError', code: 'shell.command_refused' })
        expect(outcome.error!.message).toMatch(c.expect.refused)
      } else {
        expect(outcome.error, String(outcome.error)).toBeUndefined()
        expect(outcome.result!.exitCode, outcome.result!.stderr).toBe(c.expect.exitCode)
        for (const text of c.expect.stdoutContains ?? []) expect(outcome.result!.stdout).toContain(text)
        for (const text of c.expect.stdoutNotContains ?? []) expect(outcome.result!.stdout).not.toContain(text)
      }
    })
  }
})
