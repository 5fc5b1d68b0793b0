import { checkEngine, createDockerClient } from '../../src/main/providers'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from './components'

/**
 * The sandboxes that bind a workspace whole (bubblewrap, a Docker session container), each with
 * why it is skipped on this machine, if it is (under AIRLOCK_REQUIRE_ALL a missing one fails):
 * for `describe.each` in tests that attack both the same way.
 */
export async function workspaceSandboxes(): Promise<{ provider: 'bubblewrap' | 'docker'; skip: string | undefined }[]> {
  const bwrap = await checkBubblewrapHost()
  const engine = await checkEngine(createDockerClient())
  return [
    { provider: 'bubblewrap', skip: skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason }) },
    { provider: 'docker', skip: skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason }) }
  ]
}
