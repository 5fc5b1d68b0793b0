import { execFileSync } from 'node:child_process'
import { appendFileSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agentProfileDefaults } from '@shared/agents'
import { makeTempDir } from '../../../test/support/temp-home'
import { ActionDispatcher, ActionRegistry, ExecutionResourceManager, sandboxIdentity, type ActionAgent, type ActionContext } from '../core'
import { openStore, type Store } from '../store'
import { ActionHistoryRecorder, inlineOutputLimitBytes } from './action-history-recorder'
import { HistoryService } from './history-service'

let dir: ReturnType<typeof makeTempDir>
let store: Store
let workspace: string
let changes: { id: string; status: string }[]
let diagnostics: string[]
const recorderFor = (current: Store) =>
  new ActionHistoryRecorder({
    repository: current.history,
    workspaceOf: (agentId) => (agentId === 'coder' ? workspace : undefined),
    onChange: (change) => changes.push(change),
    onDiagnostic: (message) => diagnostics.push(message)
  })
beforeEach(() => {
  dir = makeTempDir()
  workspace = join(dir.path, 'workspaces', 'coder')
  mkdirSync(workspace, { recursive: true })
  store = openStore(join(dir.path, 'airlock.db'))
  changes = []
  diagnostics = []
})
afterEach(() => {
  store.close()
  dir.remove()
})

const secret = 'hunter2-very-secret-value'
const agent: ActionAgent = {
  agentId: 'coder',
  sessionId: 'session-1',
  workspace: '/unused',
  profile: agentProfileDefaults,
  tools: new Set(['shout']),
  secrets: [secret]
}

/** A real dispatcher over the recorder, with one tool that prints what it is told to, as much as asked. */
function dispatcherWith(recorder: ActionHistoryRecorder): ActionDispatcher {
  const registry = new ActionRegistry()
  registry.register({
    name: 'shout',
    description: 'prints text',
    effects: 'execute',
    inputSchema: z.object({ text: z.string(), times: z.number().int(), fail: z.boolean().optional() }).strict(),
    executor: {
      execute: async ({ input }: ActionContext<{ text: string; times: number; fail?: boolean }>) => ({
        status: input.fail ? 'error' : 'success',
        data: { stdout: input.text.repeat(input.times), stderr: 'warn\n', exitCode: input.fail ? 3 : 0, stdoutTruncated: false, stderrTruncated: false },
        meta: { provider: { providerId: 'bubblewrap', isolation: { processContained: true } } },
        ...(input.fail ? { error: { code: 'command.failed', message: 'exit 3' } } : {})
      })
    }
  })
  return new ActionDispatcher({ manager: new ExecutionResourceManager(), registry, history: recorder })
}
const execHistory = () =>
  readFileSync(join(workspace, '.exec_history'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)

describe('ActionHistoryRecorder through the real dispatcher', () => {
  it('records each call in the chained history and one secret-free line in the workspace file', async () => {
    const dispatcher = dispatcherWith(recorderFor(store))
    const ok = await dispatcher.execute({ tool: 'shout', input: { text: `token ${secret} `, times: 2 }, agent })
    const failed = await dispatcher.execute({ tool: 'shout', input: { text: 'x', times: 1, fail: true }, agent })
    expect(changes).toEqual([
      { id: ok.meta.callId, status: 'running' },
      { id: ok.meta.callId, status: 'success' },
      { id: failed.meta.callId, status: 'running' },
      { id: failed.meta.callId, status: 'error' }
    ])
    const lines = execHistory()
    expect(lines).toEqual([
      {
        callId: ok.meta.callId,
        tool: 'shout',
        status: 'success',
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
        durationMs: expect.any(Number),
        exitCode: 0,
        errorCode: null
      },
      {
        callId: failed.meta.callId,
        tool: 'shout',
        status: 'error',
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
        durationMs: expect.any(Number),
        exitCode: 3,
        errorCode: 'command.failed'
      }
    ])
    expect(readFileSync(join(workspace, '.exec_history'), 'utf8')).not.toMatch(/token|hunter2|warn/)
    expect(statSync(join(workspace, '.exec_history')).uid).toBe(sandboxIdentity().uid)
    const detail = new HistoryService(store.history).detail(String(ok.meta.callId))
    expect(detail).toMatchObject({ status: 'success', providerId: 'bubblewrap', exitCode: 0, stderr: { text: 'warn\n', logFile: null } })
    expect(detail.stdout.text).toBe('token [redacted] token [redacted] ')
    expect(JSON.stringify(store.db.prepare('select * from action_calls').all())).not.toContain(secret)
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 2 })
    expect(diagnostics).toEqual([])
  })

  it('keeps an output over 64 KiB in logs/, reads it back checked, and notices when it changes', async () => {
    const dispatcher = dispatcherWith(recorderFor(store))
    const result = await dispatcher.execute({ tool: 'shout', input: { text: 'line of output\n', times: 5000 }, agent })
    const id = String(result.meta.callId)
    const logFile = join(dir.path, 'logs', `${id}.stdout`)
    expect(statSync(logFile).size).toBeGreaterThan(inlineOutputLimitBytes)
    expect(statSync(logFile).mode & 0o777).toBe(0o600)
    expect(store.db.prepare('select stdout, stdout_log, stderr from action_calls where id = ?').get(id)).toEqual({
      stdout: null,
      stdout_log: `${id}.stdout`,
      stderr: 'warn\n'
    })
    const history = new HistoryService(store.history)
    expect(history.detail(id).stdout).toMatchObject({
      text: 'line of output\n'.repeat(5000),
      logFile: `${id}.stdout`,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/)
    })
    expect(history.verify()).toMatchObject({ ok: true, rows: 1 })
    appendFileSync(logFile, 'forged line\n')
    expect(history.detail(id).stdout).toMatchObject({ text: null, problem: expect.stringMatching(/does not match the sha256/) })
    expect(history.verify()).toMatchObject({ ok: false, brokenAt: { id }, reason: expect.stringMatching(/stdout log file/) })
    expect(() => history.detail('no-such-call')).toThrow(expect.objectContaining({ code: 'history.not_found' }))
  })

  it('marks calls left running by a stopped process interrupted, with their workspace line', () => {
    const recorder = recorderFor(store)
    recorder.begin({ callId: 'left-running', agentId: 'coder', sessionId: 's', tool: 'run_command', inputSummary: {}, startedAt: new Date().toISOString() })
    store.close()
    store = openStore(join(dir.path, 'airlock.db'))
    changes = []
    expect(
      recorderFor(store)
        .recoverInterrupted()
        .map((row) => row.status)
    ).toEqual(['interrupted'])
    expect(changes).toEqual([{ id: 'left-running', status: 'interrupted' }])
    expect(execHistory()).toEqual([expect.objectContaining({ callId: 'left-running', status: 'interrupted', errorCode: 'interrupted', exitCode: null })])
    expect(store.history.verify()).toMatchObject({ ok: true, rows: 1 })
  })
})

describe('ActionHistoryRecorder and a hostile .exec_history', () => {
  const outside = () => join(dir.path, 'host-file')
  const hostile: [string, () => void][] = [
    ['a symlink to a host file', () => symlinkSync(outside(), join(workspace, '.exec_history'))],
    ['a dangling symlink', () => symlinkSync(join(dir.path, 'would-be-created'), join(workspace, '.exec_history'))],
    ['a hard link to a host file', () => linkSync(outside(), join(workspace, '.exec_history'))],
    ['a directory', () => mkdirSync(join(workspace, '.exec_history'))],
    ['a FIFO nobody reads', () => execFileSync('mkfifo', [join(workspace, '.exec_history')])]
  ]
  for (const [name, plant] of hostile) {
    it(`leaves ${name} alone, reports it, and still records the call`, async () => {
      writeFileSync(outside(), 'host data\n')
      plant()
      const result = await dispatcherWith(recorderFor(store)).execute({ tool: 'shout', input: { text: 'hi', times: 1 }, agent })
      expect(result.status).toBe('success')
      expect(result.diagnostics).toEqual([])
      expect(readFileSync(outside(), 'utf8')).toBe('host data\n')
      expect(existsSync(join(dir.path, 'would-be-created'))).toBe(false)
      expect(diagnostics).toEqual([expect.stringMatching(/\.exec_history/)])
      expect(store.history.get(String(result.meta.callId))).toMatchObject({ status: 'success' })
      expect(store.history.verify()).toMatchObject({ ok: true, rows: 1 })
    })
  }

  it('does not follow a workspace that was replaced by a symlink', async () => {
    const real = join(dir.path, 'elsewhere')
    mkdirSync(real)
    workspace = join(dir.path, 'workspaces', 'linked')
    symlinkSync(real, workspace)
    const result = await dispatcherWith(recorderFor(store)).execute({ tool: 'shout', input: { text: 'hi', times: 1 }, agent })
    expect(result.status).toBe('success')
    expect(readdirSync(real)).toEqual([])
    expect(diagnostics).toEqual([expect.stringMatching(/cannot be opened without following links/)])
    expect(lstatSync(workspace).isSymbolicLink()).toBe(true)
  })
})
