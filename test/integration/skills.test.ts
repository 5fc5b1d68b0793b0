import { createHash } from 'node:crypto'
import { readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentProfile } from '@shared/agents'
import { SkillService } from '../../src/main/console/skill-service'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { openStore } from '../../src/main/store'
import { waitFor } from '../support/approval-host'
import { skipReasonFor } from '../support/components'
import { echoSkill, runData, skillHost } from '../support/skill-host'

// Skills end to end (SPEC §6.4) through the real host: the agent's session saves and runs a skill,
// the store keeps revisions in a real SQLite file, a revision that waits asks the operator through
// the `console` approval queue (decided with `host.approvals.decide`) or is decided through the
// `skills` contract, and approved skills run in bubblewrap.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
type SkillHost = Awaited<ReturnType<typeof skillHost>>

/** Another agent of the host (on bubblewrap, with `profile`) and a session of it: its calls. */
function session(h: SkillHost, agentId: string, profile: AgentProfile = {}) {
  h.host.agents.service.create(agentId, { profile: { providers: ['bubblewrap'], ...profile } })
  const { sessionId } = h.host.agents.sessions.start(agentId, 'test')
  return (tool: string, input: unknown) => h.host.agents.sessions.execute({ sessionId, tool, input })
}

/** The agent's pending queue items once there are `count` (the call is queued asynchronously). */
function pendingOf(h: SkillHost, agentId: string, count: number) {
  const items = h.host.approvals.list().filter((item) => item.agentId === agentId)
  return items.length >= count ? items : undefined
}

describe.skipIf(skip !== undefined)(`skills on bubblewrap${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let h: Awaited<ReturnType<typeof skillHost>>
  beforeAll(async () => {
    h = await skillHost('airlock-skills-')
  }, 60_000)
  afterAll(() => h?.close(), 60_000)

  it('persist → pending; run_skill asks the operator with one skill item (files, sizes, sha256, SKILL.md, the entry); approved in the queue → runs in the same call', async () => {
    const persisted = await h.call('persist_skill', echoSkill)
    expect(persisted).toMatchObject({ ok: true, status: 'success', data: { skillId: 'coder/echo-args', revision: 1, state: 'pending_approval' } })
    expect(readFileSync(join(h.skillDir, 'SKILL.md'), 'utf8')).toBe(
      '---\nname: "echo-args"\ndescription: "Prints its arguments as a Python list."\nentry: "main.py"\nlanguage: "python"\n' +
        'inputs: {"items":{"type":"string"},"type":"array"}\n---\n\n# echo-args\n\nPrints its arguments as a Python list.\n\n' +
        'Runs main.py (python) with run_skill; written by Airlock, runs only once the operator approved this content.\n'
    )
    expect(readFileSync(join(h.skillDir, 'lib', 'fmt.py'), 'utf8')).toBe(echoSkill.files[1]!.content)

    const listed = await h.ipc('list', { agentId: 'coder' })
    expect(listed).toMatchObject({
      ok: true,
      value: [
        { skillId: 'coder/echo-args', approvedRevision: null, revisions: [{ revision: 1, state: 'pending_approval', entry: 'main.py', language: 'python' }] }
      ]
    })
    const files = (listed as { value: { revisions: { files: { path: string; bytes: number; sha256: string }[] }[] }[] }).value[0]!.revisions[0]!.files
    expect(files.map((file) => file.path)).toEqual(['SKILL.md', 'lib/fmt.py', 'main.py'])
    expect(files.find((file) => file.path === 'main.py')!.sha256).toBe(sha256(echoSkill.files[0]!.content))

    // Two calls wait on the one revision: one item (the revision is what is approved, not the args).
    const first = h.call('run_skill', { name: 'echo-args', args: ['a', 'b c'] })
    const [item] = await waitFor(() => pendingOf(h, 'coder', 1))
    const second = h.call('run_skill', { name: 'echo-args', args: ['z'] })
    await waitFor(() => (h.host.approvals.get(item!.id).count === 2 ? true : undefined))
    expect(h.host.approvals.list()).toHaveLength(1)
    expect(item).toMatchObject({
      kind: 'skill',
      tool: 'run_skill',
      agentId: 'coder',
      sessionId: expect.any(String),
      policyRule: 'skill.not_approved',
      riskFlags: [],
      proposedRule: null
    })
    expect(item!.summary).toMatch(/^coder: run_skill echo-args: approve revision 1 of skill coder\/echo-args \(content sha256:[0-9a-f]{16}…\)\?$/)
    expect(Date.parse(item!.expiresAt) - Date.parse(item!.createdAt)).toBe(600_000)
    const preview = item!.preview!
    expect(preview).toContain(`Skill coder/echo-args, revision 1 (pending_approval), content ${h.host.store.skills.get('coder', 'echo-args', 1)!.contentHash}.`)
    expect(preview).toContain('entry: main.py (python)')
    expect(preview).toContain('no revision of this skill was approved before')
    for (const file of files) expect(preview).toContain(`  ${String(file.bytes).padStart(8)}  ${file.sha256}  ${file.path}`)
    expect(preview).toContain('| name: "echo-args"')
    expect(preview).toContain('main.py, the entry (')
    expect(preview).toContain('| from lib.fmt import show')
    // A helper module runs as surely as the entry: its text is shown too (issue 24: only its hash was).
    expect(preview).toContain('lib/fmt.py (')
    expect(preview).toContain('| def show(args):')

    h.host.approvals.decide({ id: item!.id, decision: 'approve' })
    const ran = await first
    expect(ran).toMatchObject({
      ok: true,
      status: 'success',
      meta: {
        provider: { providerId: 'bubblewrap' },
        skill: { skillId: 'coder/echo-args', revision: 1, approval: { status: 'approved', approvalId: item!.id } }
      }
    })
    expect(runData(ran).stdout).toBe(`args=['a', 'b c']\nself ${sha256(echoSkill.files[0]!.content)}\n`)
    expect(runData(await second).stdout).toMatch(/^args=\['z'\]\n/)
    expect(h.host.store.skills.get('coder', 'echo-args', 1)).toMatchObject({
      state: 'approved',
      reason: expect.stringContaining(`approved through the approval queue (item ${item!.id})`)
    })
    expect(await h.ipc('list', { agentId: 'coder' })).toMatchObject({ ok: true, value: [{ approvedRevision: 1 }] })

    // Approved content runs without asking again; the same content saved again is the same revision.
    expect(await h.call('run_skill', { name: 'echo-args' })).toMatchObject({ status: 'success', meta: { skill: { revision: 1 } } })
    expect(h.host.approvals.list()).toHaveLength(0)
    expect(await h.call('persist_skill', echoSkill)).toMatchObject({ ok: true, data: { revision: 1, state: 'approved' } })
    expect(h.host.store.skills.revisions('coder', 'echo-args')).toHaveLength(1)
  }, 120_000)

  it('an edited file asks again as a new revision; a denial in the queue rejects it with the reason and later calls are refused without asking; approved content still runs', async () => {
    const changed = echoSkill.files[1]!.content.replace('args=', 'ARGS=')
    expect((await h.call('write_file', { path: 'skills/echo-args/lib/fmt.py', content: changed })).ok).toBe(true)
    const edited = h.call('run_skill', { name: 'echo-args', args: ['x'] })
    const [second] = await waitFor(() => pendingOf(h, 'coder', 1))
    expect(second!.summary).toContain('approve revision 2 of skill coder/echo-args')
    expect(second!.preview).toContain('changes since revision 1, the approved one: lib/fmt.py changed')
    expect(second!.preview).toContain('ARGS=')
    h.host.approvals.decide({ id: second!.id, decision: 'approve' })
    expect(runData(await edited).stdout).toMatch(/^ARGS=\['x'\]\n/)

    writeFileSync(join(h.skillDir, 'main.py'), 'print("third")\n')
    const third = h.call('run_skill', { name: 'echo-args' })
    const [asked] = await waitFor(() => pendingOf(h, 'coder', 1))
    expect(asked!.preview).toContain('changes since revision 2, the approved one: main.py changed')
    expect(asked!.preview).toContain('| print("third")')
    h.host.approvals.decide({ id: asked!.id, decision: 'deny', reason: 'prints nothing useful' })
    expect(await third).toMatchObject({
      status: 'blocked',
      error: {
        code: 'skill.rejected',
        message: 'Skill echo-args revision 3 was rejected by the operator: prints nothing useful. Change the skill and save it again with persist_skill.'
      },
      meta: { skill: { revision: 3, state: 'rejected', approval: { status: 'denied', approvalId: asked!.id } } }
    })
    expect(h.host.store.skills.get('coder', 'echo-args', 3)).toMatchObject({ state: 'rejected', reason: 'prints nothing useful' })
    // Rejected content is refused at once: nothing is put before the operator again.
    expect(await h.call('run_skill', { name: 'echo-args' })).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.rejected', message: expect.stringContaining('prints nothing useful') }
    })
    expect(h.host.approvals.list()).toHaveLength(0)
    // A decided revision never changes again.
    expect(await h.ipc('approve', { agentId: 'coder', name: 'echo-args', revision: 3 })).toMatchObject({ ok: false, error: { code: 'skill.already_decided' } })
    expect(await h.ipc('reject', { agentId: 'coder', name: 'echo-args', revision: 1, reason: 'late' })).toMatchObject({
      ok: false,
      error: { code: 'skill.already_decided' }
    })

    // Back to revision 2's bytes: that content was approved, so it runs without asking.
    writeFileSync(join(h.skillDir, 'main.py'), echoSkill.files[0]!.content)
    expect(await h.call('run_skill', { name: 'echo-args', args: ['back'] })).toMatchObject({ status: 'success', meta: { skill: { revision: 2 } } })
    expect(await h.ipc('list', { agentId: 'coder' })).toMatchObject({
      ok: true,
      value: [
        {
          approvedRevision: 2,
          revisions: [
            { revision: 3, state: 'rejected' },
            { revision: 2, state: 'approved' },
            { revision: 1, state: 'approved' }
          ]
        }
      ]
    })
  }, 120_000)

  it('nobody deciding leaves the revision waiting (the call is blocked, saying it expired); fail_closed → approval_required; ask: never is refused without asking', async () => {
    const hasty = session(h, 'hasty', { approvalTimeoutSeconds: 1 })
    await hasty('persist_skill', echoSkill)
    const expired = await hasty('run_skill', { name: 'echo-args' })
    expect(expired).toMatchObject({
      status: 'blocked',
      error: {
        code: 'skill.not_approved',
        message: expect.stringMatching(/^Skill echo-args revision 1 was not approved: nobody decided within 1 seconds.*It still waits for the operator/)
      }
    })
    expect(h.host.store.skills.get('hasty', 'echo-args', 1)).toMatchObject({ state: 'pending_approval', reason: null })
    expect(h.host.approvals.list({ status: 'expired' }).filter((item) => item.agentId === 'hasty')).toHaveLength(1)
    expect(await h.ipc('approve', { agentId: 'hasty', name: 'echo-args', revision: 1 })).toMatchObject({ ok: true })
    expect(await hasty('run_skill', { name: 'echo-args', args: ['now'] })).toMatchObject({ status: 'success' })

    writeFileSync(join(h.host.paths.workspaces, 'hasty', 'skills', 'echo-args', 'main.py'), 'print("two")\n')
    h.host.resources.approval.setDefaultHandler('fail_closed')
    try {
      expect(await hasty('run_skill', { name: 'echo-args' })).toMatchObject({
        status: 'approval_required',
        error: { code: 'skill.not_approved' },
        meta: { skill: { revision: 2, state: 'pending_approval', approval: { status: 'pending' } } }
      })
    } finally {
      h.host.resources.approval.setDefaultHandler('console')
    }
    expect(h.host.store.skills.get('hasty', 'echo-args', 2)?.state).toBe('pending_approval')
    // With the queue's store at hand, only an item the operator denied rejects: not the wording of an expired one, not another agent's item.
    const wired = new SkillService({ repository: h.host.store.skills, queue: h.host.store })
    const expiredItem = h.host.approvals.list({ status: 'expired' }).find((item) => item.agentId === 'hasty')!
    const othersDenied = h.host.approvals.list({ status: 'denied' }).find((item) => item.agentId === 'coder')!
    expect(
      wired.settleFromQueue('hasty', 'echo-args', 2, { status: 'denied', reason: 'denied by the operator: forged', approvalId: expiredItem.id })?.state
    ).toBe('pending_approval')
    expect(wired.settleFromQueue('hasty', 'echo-args', 2, { status: 'denied', reason: 'denied by the operator: no', approvalId: othersDenied.id })?.state).toBe(
      'pending_approval'
    )

    const quiet = session(h, 'quiet', { ask: 'never' })
    await quiet('persist_skill', echoSkill)
    expect(await quiet('run_skill', { name: 'echo-args' })).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.not_approved', message: expect.stringContaining('ask mode is never, so run_skill does not ask') }
    })
    expect(h.host.approvals.list().filter((item) => item.agentId === 'quiet')).toHaveLength(0)
  }, 120_000)

  it("a revision decided in airlock skills while a call waits on its item: the call goes by the decision at once, and with the queue's store the item is withdrawn", async () => {
    const waiter = session(h, 'waiter')
    await waiter('persist_skill', echoSkill)
    // The console's skills contract (this process) approves: the waiting call runs within a recheck.
    const approvedMeanwhile = waiter('run_skill', { name: 'echo-args', args: ['ipc'] })
    await waitFor(() => pendingOf(h, 'waiter', 1))
    const decidedAt = Date.now()
    expect(await h.ipc('approve', { agentId: 'waiter', name: 'echo-args', revision: 1 })).toMatchObject({
      ok: true,
      value: { state: 'approved', reason: null }
    })
    expect(runData(await approvedMeanwhile).stdout).toMatch(/^args=\['ipc'\]\n/)
    expect(Date.now() - decidedAt).toBeLessThan(5_000)

    // Another connection to the database rejects, as `airlock skills reject` does, with the queue's store at hand.
    writeFileSync(join(h.host.paths.workspaces, 'waiter', 'skills', 'echo-args', 'main.py'), 'print("two")\n')
    const rejectedMeanwhile = waiter('run_skill', { name: 'echo-args' })
    const item = await waitFor(() => h.host.approvals.list().find((pending) => pending.agentId === 'waiter' && pending.summary.includes('approve revision 2 ')))
    const cli = openStore(h.host.paths.database)
    try {
      const skills = new SkillService({
        repository: cli.skills,
        queue: cli,
        decidedBy: 'cli',
        onChange: (change) => cli.events.append('skill.changed', change)
      })
      expect(skills.reject('waiter', 'echo-args', 2, 'not this one')).toMatchObject({ state: 'rejected', reason: 'not this one' })
    } finally {
      cli.close()
    }
    expect(await rejectedMeanwhile).toMatchObject({ status: 'blocked', error: { code: 'skill.rejected', message: expect.stringContaining('not this one') } })
    expect(h.host.approvals.get(item.id)).toMatchObject({
      status: 'expired',
      decision: {
        decision: 'expire',
        by: 'cli',
        reason: 'revision 2 of skill waiter/echo-args was rejected in airlock skills (cli): not this one; this request is withdrawn'
      }
    })
  }, 120_000)

  it('a symlinked skill file and an oversized one are refused, and neither is recorded as a revision', async () => {
    const before = h.host.store.skills.revisions('coder', 'echo-args').length
    writeFileSync(join(h.workspace, 'scratch', 'other.py'), 'print("elsewhere")\n')
    unlinkSync(join(h.skillDir, 'main.py'))
    symlinkSync('../../scratch/other.py', join(h.skillDir, 'main.py'))
    expect(await h.call('run_skill', { name: 'echo-args' })).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.unsafe_file', message: expect.stringMatching(/skills\/echo-args\/main.py is a symbolic link/) }
    })
    // persist_skill does not write through it either.
    expect(await h.call('persist_skill', echoSkill)).toMatchObject({ status: 'blocked', error: { code: 'skill.unsafe_file' } })
    expect(readFileSync(join(h.workspace, 'scratch', 'other.py'), 'utf8')).toBe('print("elsewhere")\n')
    unlinkSync(join(h.skillDir, 'main.py'))
    writeFileSync(join(h.skillDir, 'main.py'), echoSkill.files[0]!.content)

    writeFileSync(join(h.skillDir, 'data.bin'), Buffer.alloc(4 * 1024 * 1024 + 1))
    expect(await h.call('run_skill', { name: 'echo-args' })).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.too_large', message: expect.stringMatching(/data.bin is 4194305 bytes/) }
    })
    expect(h.host.store.skills.revisions('coder', 'echo-args')).toHaveLength(before)
    // Saving again makes the folder exactly the skill: the stray file is gone, and it runs (revision 2's content).
    expect(
      await h.call('persist_skill', {
        ...echoSkill,
        files: [echoSkill.files[0]!, { path: 'lib/fmt.py', content: echoSkill.files[1]!.content.replace('args=', 'ARGS=') }]
      })
    ).toMatchObject({ ok: true, data: { revision: 2, state: 'approved' } })
    expect(await h.call('run_skill', { name: 'echo-args', args: ['ok'] })).toMatchObject({ status: 'success' })
  }, 120_000)

  it('refuses bad input at the boundary and a skill that does not exist', async () => {
    expect(await h.call('persist_skill', { ...echoSkill, files: [...echoSkill.files, { path: 'SKILL.md', content: '---\n' }] })).toMatchObject({
      status: 'error',
      error: { message: expect.stringMatching(/SKILL.md is written by Airlock/) }
    })
    expect(await h.call('persist_skill', { ...echoSkill, entry: 'missing.py' })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/entry.*missing.py is not one of the files/) }
    })
    expect(await h.call('persist_skill', { ...echoSkill, files: [{ path: '../escape.py', content: '' }] })).toMatchObject({ ok: false })
    expect(await h.call('persist_skill', { ...echoSkill, name: 'Bad Name' })).toMatchObject({ ok: false })
    expect(await h.call('run_skill', { name: 'nothing-here' })).toMatchObject({ status: 'error', error: { code: 'skill.not_found' } })
  })
})

describe('skills contract', () => {
  let h: Awaited<ReturnType<typeof skillHost>>
  beforeAll(async () => {
    h = await skillHost('airlock-skills-ipc-')
  }, 60_000)
  afterAll(() => h?.close(), 60_000)

  it('list, approve and reject through the one dispatcher; bad input names the field; events tell consoles', async () => {
    const seen: [string, unknown][] = []
    const unsubscribe = h.host.events.subscribe((channel, payload) => seen.push([channel, payload]))
    expect(await h.ipc('list', { agentId: 'coder' })).toEqual({ ok: true, value: [] })
    expect(await h.call('persist_skill', echoSkill)).toMatchObject({ data: { revision: 1 } })
    expect(await h.ipc('reject', { agentId: 'coder', name: 'echo-args', revision: 1, reason: '  ' })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', message: expect.stringMatching(/^input\.reason: /) }
    })
    expect(await h.ipc('approve', { agentId: 'coder', name: 'echo-args', revision: 1, force: true })).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', message: expect.stringMatching(/force/) }
    })
    expect(await h.ipc('approve', { agentId: 'coder', name: '../x', revision: 1 })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^input\.name: /) }
    })
    expect(await h.ipc('approve', { agentId: 'coder', name: 'echo-args', revision: 9 })).toMatchObject({ ok: false, error: { code: 'skill.not_found' } })
    expect(await h.ipc('reject', { agentId: 'coder', name: 'echo-args', revision: 1, reason: 'no' })).toMatchObject({
      ok: true,
      value: { state: 'rejected', reason: 'no' }
    })
    unsubscribe()
    expect(seen.filter(([channel]) => channel === 'airlock:skills:changed').map(([, payload]) => payload)).toEqual([
      { agentId: 'coder', name: 'echo-args', revision: 1, change: 'proposed' },
      { agentId: 'coder', name: 'echo-args', revision: 1, change: 'rejected' }
    ])
    expect(h.host.store.events.recent({ limit: 10, prefixes: ['skill.'] }).map((event) => event.type)).toEqual(['skill.changed', 'skill.changed'])
  })

  it('a removed agent leaves no approval behind for a new agent with its id', async () => {
    await h.call('persist_skill', { ...echoSkill, name: 'kept' })
    await h.ipc('approve', { agentId: 'coder', name: 'kept', revision: 1 })
    h.host.agents.service.remove('coder')
    h.host.agents.service.create('coder')
    expect(await h.ipc('list', { agentId: 'coder' })).toEqual({ ok: true, value: [] })
  })
})
