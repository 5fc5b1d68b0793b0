import { join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import type { AgentProfile } from '@shared/agents'
import type { ActionResult } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'
import { createDockerClient } from '../../src/main/providers'
import { ensureTestImages } from './docker-images'
import { makeTempDir } from './temp-home'

/** What `run_command` returned. */
export type CommandRun = { exitCode: number; stdout: string; stderr: string }

/**
 * One agent `coder` on a real host in a fresh home, served by `provider` alone, with one open
 * session: the setup of the tests that attack or use a workspace sandbox (`workspaceSandboxes`).
 * Registers its own `beforeAll`/`afterAll` in the calling `describe` (a later `beforeAll` there
 * runs after it). `run` expects the call to succeed and returns the command's result.
 */
export function sandboxAgent(provider: string, options: { prefix: string; profile: AgentProfile }) {
  let dir: ReturnType<typeof makeTempDir>
  const state = {} as { host: Host; workspace: string; sessionId: string }
  const call = (tool: string, input: unknown): Promise<ActionResult> => state.host.agents.sessions.execute({ sessionId: state.sessionId, tool, input })
  const run = async (command: string): Promise<CommandRun> => {
    const result = await call('run_command', { command })
    expect(result.status, JSON.stringify(result.error)).toBe('success')
    return result.data as CommandRun
  }
  beforeAll(async () => {
    if (provider === 'docker') await ensureTestImages(createDockerClient())
    dir = makeTempDir(options.prefix, { outsideTmp: true })
    state.host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
    await state.host.recovered
    state.workspace = state.host.agents.service.create('coder', { profile: { ...options.profile, providers: [provider as 'bubblewrap'] } }).workspace
    state.sessionId = state.host.agents.sessions.start('coder', 'test').sessionId
  }, 600_000)
  afterAll(async () => {
    await state.host?.agents.sessions.end(state.sessionId)
    await state.host?.dispose()
    dir?.remove()
  })
  return {
    call,
    run,
    get host() {
      return state.host
    },
    get workspace() {
      return state.workspace
    },
    get sessionId() {
      return state.sessionId
    }
  }
}
