import { createHash } from 'node:crypto'
import { existsSync, lstatSync, readFileSync, readlinkSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { describeChanges } from '../../src/main/console/checkpoints'
import { skipReasonFor } from '../support/components'
import { sandboxAgent } from '../support/sandbox-agent'

// Issue 28: every call that can change a workspace is checkpointed (what it changed, with the
// content before and after), and the operator can see it as a diff and undo it. Against a real
// host, real bubblewrap sandboxes and a real SQLite file.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })

/** Every entry below `root` with its kind, mode and content hash (a link's target), for byte-for-byte comparisons. */
function tree(root: string, skipRoot = new Set(['.airlock', '.exec_history'])): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (!prefix && skipRoot.has(name)) continue
      const path = join(dir, name)
      const stat = lstatSync(path)
      const mode = (stat.mode & 0o7777).toString(8)
      const key = prefix + name
      if (stat.isDirectory()) {
        out[key] = `dir ${mode}`
        walk(path, `${key}/`)
      } else if (stat.isSymbolicLink()) out[key] = `link ${readlinkSync(path)}`
      else out[key] = `file ${mode} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`
    }
  }
  walk(root, '')
  return out
}

describe.skipIf(skip !== undefined)(`workspace checkpoints${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const agent = sandboxAgent('bubblewrap', { prefix: 'airlock-checkpoints-', profile: { ask: 'never', capabilities: ['files', 'shell', 'python', 'sqlite'] } })
  const checkpoints = () => agent.host.agents.checkpoints
  const changesOf = (callId: string) => {
    const found = checkpoints().get(callId)
    expect(found, `a checkpoint for ${callId}`).toBeDefined()
    return Object.fromEntries(found!.changes.map((change) => [change.path.toString('utf8'), change.change]))
  }

  it('records what write_file, edit_file and run_command changed, with the content before and after', async () => {
    const written = await agent.call('write_file', { path: 'src/app.txt', content: 'one\ntwo\nthree\n' })
    expect(written.ok).toBe(true)
    expect(written.meta.checkpoint).toMatchObject({ files: 2 })
    expect(changesOf(written.meta.callId as string)).toEqual({ src: 'added', 'src/app.txt': 'added' })

    const edited = await agent.call('edit_file', { path: 'src/app.txt', oldText: 'two', newText: 'TWO' })
    expect(edited.ok).toBe(true)
    const { changes } = checkpoints().get(edited.meta.callId as string)!
    expect(changes.map((c) => [c.path.toString(), c.change])).toEqual([['src/app.txt', 'modified']])
    const [diff] = describeChanges(changes, (checkpoints() as unknown as { options: { store: never } }).options.store)
    expect(diff!.diff).toContain('-two\n+TWO')

    const ran = await agent.call('run_command', { command: 'printf data > out.bin && chmod 751 out.bin && rm src/app.txt' })
    expect(ran.ok).toBe(true)
    expect(changesOf(ran.meta.callId as string)).toEqual({ 'out.bin': 'added', 'src/app.txt': 'deleted' })
  })

  it('reverts a run_command that deleted a tree: every file comes back byte for byte, modes and links too', async () => {
    await agent.run(
      'mkdir -p proj/lib/deep && printf "x%.0s" $(seq 1 5000) > proj/lib/big.txt && printf "#!/bin/sh\\necho hi\\n" > proj/run.sh && chmod 750 proj/run.sh && ln -s lib/big.txt proj/link && chmod 700 proj/lib/deep && head -c 4096 /dev/urandom > proj/blob.bin'
    )
    const before = tree(agent.workspace)
    const removed = await agent.call('run_command', { command: 'rm -rf proj' })
    expect(removed.ok).toBe(true)
    expect(existsSync(join(agent.workspace, 'proj'))).toBe(false)
    const undone = await checkpoints().revert(removed.meta.callId as string)
    expect(undone.files).toBeGreaterThanOrEqual(7)
    expect(tree(agent.workspace)).toEqual(before)
    // The revert is a history row of the operator's, and a checkpoint of its own that can be undone.
    const rows = agent.host.store.history.list({ agentId: 'coder', tool: 'checkpoint.revert', limit: 5 }).rows
    expect(rows[0]).toMatchObject({ tool: 'checkpoint.revert', status: 'success', sessionId: 'operator' })
    expect(undone.checkpoint).toMatchObject({ kind: 'revert' })
    await checkpoints().revert(undone.checkpoint!.id)
    expect(existsSync(join(agent.workspace, 'proj'))).toBe(false)
    await checkpoints()
      .revert(removed.meta.callId as string)
      .catch(() => undefined)
  })

  it('tells the agent on its next call that the operator changed its workspace', async () => {
    const made = await agent.call('write_file', { path: 'told.txt', content: 'mine' })
    await checkpoints().revert(made.meta.callId as string)
    const next = await agent.call('list_directory', { path: '.' })
    expect(next.meta.workspaceChanged).toEqual([
      expect.objectContaining({ by: 'operator', action: 'revert', note: expect.stringContaining(made.meta.callId as string) })
    ])
    expect((await agent.call('list_directory', { path: '.' })).meta.workspaceChanged).toBeUndefined()
  })

  it('refuses a revert whose file changed again since, naming it, and changes nothing', async () => {
    const first = await agent.call('write_file', { path: 'conflict.txt', content: 'first' })
    await agent.call('write_file', { path: 'conflict.txt', content: 'second' })
    await expect(checkpoints().revert(first.meta.callId as string)).rejects.toMatchObject({
      code: 'checkpoint.conflict',
      message: expect.stringContaining('conflict.txt')
    })
    expect(readFileSync(join(agent.workspace, 'conflict.txt'), 'utf8')).toBe('second')
  })

  it('restores the workspace to before a call, across five calls', async () => {
    await agent.run('mkdir -p five && printf base > five/a.txt')
    const before = tree(agent.workspace)
    const calls: string[] = []
    for (const command of [
      'printf 1 > five/a.txt',
      'printf new > five/b.txt',
      'rm five/a.txt',
      'mkdir five/sub && printf s > five/sub/s.txt',
      'chmod 600 five/b.txt'
    ]) {
      const result = await agent.call('run_command', { command })
      expect(result.ok).toBe(true)
      calls.push(result.meta.callId as string)
    }
    await checkpoints().restoreBefore(calls[0]!)
    expect(tree(agent.workspace)).toEqual(before)
  })

  it('records a change made between calls as outside, not as the next call’s', async () => {
    writeFileSync(join(agent.workspace, 'operator-edit.txt'), 'by hand')
    const next = await agent.call('write_file', { path: 'agent.txt', content: 'by the agent' })
    expect(changesOf(next.meta.callId as string)).toEqual({ 'agent.txt': 'added' })
    const outside = checkpoints()
      .list('coder', { limit: 5 })
      .find((record) => record.kind === 'outside')
    expect(outside).toBeDefined()
    expect(
      checkpoints()
        .get(outside!.id)!
        .changes.map((c) => c.path.toString())
    ).toContain('operator-edit.txt')
  })

  it('a write to a workspace database is checkpointed', async () => {
    const created = await agent.call('sqlite_query', { database: 'data.db', sql: 'create table t (x)' })
    expect(created.ok, JSON.stringify(created.error)).toBe(true)
    expect(Object.keys(changesOf(created.meta.callId as string))).toContain('data.db')
  })
})

describe.skipIf(skip !== undefined)(`deletions the checkpoint can undo do not ask${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const agent = sandboxAgent('bubblewrap', { prefix: 'airlock-checkpoints-ask-', profile: { ask: 'on_risk', approvalTimeoutSeconds: 1 } })

  it('rm -rf of a kept tree and git reset --hard run without asking (recoverable_deletion); what is over the size cap still asks', async () => {
    await agent.run(
      'mkdir -p build/out && printf x > build/out/a.o && git init -q && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m init && printf y > tracked.txt'
    )
    const removed = await agent.call('run_command', { command: 'rm -rf build' })
    expect(removed.ok, JSON.stringify(removed.error)).toBe(true)
    expect(removed.meta.policy).toMatchObject({ decision: 'allow', riskFlags: ['recoverable_deletion'] })
    expect(agent.host.agents.checkpoints.get(removed.meta.callId as string)!.changes.map((c) => [c.path.toString(), c.change])).toContainEqual([
      'build/out/a.o',
      'deleted'
    ])

    await agent.run('git add -A && git -c user.email=a@b -c user.name=a commit -q -m t && printf changed > tracked.txt')
    const reset = await agent.call('run_command', { command: 'git reset --hard -q' })
    expect(reset.ok, JSON.stringify(reset.error)).toBe(true)
    expect(reset.meta.policy).toMatchObject({ riskFlags: ['recoverable_deletion'] })
    // What the reset threw away is in its checkpoint.
    expect(agent.host.agents.checkpoints.describe(reset.meta.callId as string, 50)!.files.find((f) => f.path === 'tracked.txt')!.diff).toContain('-changed')

    agent.host.settings.set('checkpoints.max_file_mb', 1)
    try {
      await agent.run('head -c 2000000 /dev/zero > big.bin')
      const big = await agent.call('run_command', { command: 'rm big.bin' })
      expect(big).toMatchObject({ status: 'blocked', error: { code: 'approval.denied' } })
      expect(big.meta.policy).toMatchObject({ rule: 'risk.deletion' })
    } finally {
      agent.host.settings.reset('checkpoints.max_file_mb')
    }
  }, 60_000)
})
