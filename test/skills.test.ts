import { createHash } from 'node:crypto'
import { readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from './support/components'
import { echoSkill, runData, skillHost } from './support/skill-host'

// Skills end to end (SPEC §6.4) through the real host: the agent's session saves and runs a skill,
// the store keeps revisions in a real SQLite file, the operator decides through the `skills`
// contract, and approved skills run in bubblewrap.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe.skipIf(skip !== undefined)(`skills on bubblewrap${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let h: Awaited<ReturnType<typeof skillHost>>
  beforeAll(async () => {
    h = await skillHost('airlock-skills-')
  }, 60_000)
  afterAll(() => h?.close(), 60_000)

  it('persist → pending; run refused; approve → runs the args through bubblewrap; the same content again is the same revision', async () => {
    const persisted = await h.call('persist_skill', echoSkill)
    expect(persisted).toMatchObject({ ok: true, status: 'success', data: { skillId: 'coder/echo-args', revision: 1, state: 'pending_approval' } })
    expect(readFileSync(join(h.skillDir, 'SKILL.md'), 'utf8')).toBe(
      '---\nname: "echo-args"\ndescription: "Prints its arguments as a Python list."\nentry: "main.py"\nlanguage: "python"\n' +
        'inputs: {"items":{"type":"string"},"type":"array"}\n---\n\n# echo-args\n\nPrints its arguments as a Python list.\n\n' +
        'Runs main.py (python) with run_skill; written by Airlock, runs only once the operator approved this content.\n'
    )
    expect(readFileSync(join(h.skillDir, 'lib', 'fmt.py'), 'utf8')).toBe(echoSkill.files[1]!.content)

    const refused = await h.call('run_skill', { name: 'echo-args', args: ['a'] })
    expect(refused).toMatchObject({ ok: false, status: 'blocked', error: { code: 'skill.not_approved', message: expect.stringMatching(/revision 1 waits for the operator's approval/) }, meta: { policy: { rule: 'skill.not_approved' } } })

    const listed = await h.ipc('list', { agentId: 'coder' })
    expect(listed).toMatchObject({ ok: true, value: [{ skillId: 'coder/echo-args', approvedRevision: null, revisions: [{ revision: 1, state: 'pending_approval', entry: 'main.py', language: 'python' }] }] })
    const files = (listed as { value: { revisions: { files: { path: string; sha256: string }[] }[] }[] }).value[0]!.revisions[0]!.files
    expect(files.map((file) => file.path)).toEqual(['SKILL.md', 'lib/fmt.py', 'main.py'])
    expect(files.find((file) => file.path === 'main.py')!.sha256).toBe(sha256(echoSkill.files[0]!.content))

    expect(await h.ipc('approve', { agentId: 'coder', name: 'echo-args', revision: 1 })).toMatchObject({ ok: true, value: { revision: 1, state: 'approved', decidedAt: expect.any(String) } })
    const ran = await h.call('run_skill', { name: 'echo-args', args: ['a', 'b c'] })
    expect(ran).toMatchObject({ ok: true, status: 'success', meta: { provider: { providerId: 'bubblewrap' }, skill: { skillId: 'coder/echo-args', revision: 1 } } })
    expect(runData(ran).stdout).toBe(`args=['a', 'b c']\nself ${sha256(echoSkill.files[0]!.content)}\n`)

    expect(await h.call('persist_skill', echoSkill)).toMatchObject({ ok: true, data: { revision: 1, state: 'approved' } })
    expect(h.host.store.skills.revisions('coder', 'echo-args')).toHaveLength(1)
  }, 120_000)

  it('an edited file waits as a new revision until approved; a rejected one is refused with the reason; approved content still runs', async () => {
    const changed = echoSkill.files[1]!.content.replace('args=', 'ARGS=')
    expect((await h.call('write_file', { path: 'skills/echo-args/lib/fmt.py', content: changed })).ok).toBe(true)
    const waits = await h.call('run_skill', { name: 'echo-args', args: ['x'] })
    expect(waits).toMatchObject({ status: 'blocked', error: { code: 'skill.not_approved', message: expect.stringMatching(/revision 2 waits .*differ from revision 1, which was approved/) }, meta: { skill: { revision: 2, state: 'pending_approval' } } })
    // Asking again does not pile up revisions.
    expect(await h.call('run_skill', { name: 'echo-args', args: ['x'] })).toMatchObject({ status: 'blocked', meta: { skill: { revision: 2 } } })
    expect(await h.ipc('approve', { agentId: 'coder', name: 'echo-args', revision: 2 })).toMatchObject({ ok: true })
    expect(runData(await h.call('run_skill', { name: 'echo-args', args: ['x'] })).stdout).toMatch(/^ARGS=\['x'\]\n/)

    writeFileSync(join(h.skillDir, 'main.py'), 'print("third")\n')
    expect(await h.call('run_skill', { name: 'echo-args' })).toMatchObject({ status: 'blocked', meta: { skill: { revision: 3 } } })
    expect(await h.ipc('reject', { agentId: 'coder', name: 'echo-args', revision: 3, reason: 'prints nothing useful' })).toMatchObject({ ok: true, value: { state: 'rejected', reason: 'prints nothing useful' } })
    expect(await h.call('run_skill', { name: 'echo-args' })).toMatchObject({ status: 'blocked', error: { code: 'skill.rejected', message: expect.stringContaining('prints nothing useful') } })
    // A decided revision never changes again.
    expect(await h.ipc('approve', { agentId: 'coder', name: 'echo-args', revision: 3 })).toMatchObject({ ok: false, error: { code: 'skill.already_decided' } })
    expect(await h.ipc('reject', { agentId: 'coder', name: 'echo-args', revision: 1, reason: 'late' })).toMatchObject({ ok: false, error: { code: 'skill.already_decided' } })

    // Back to revision 2's bytes: that content was approved, so it runs.
    writeFileSync(join(h.skillDir, 'main.py'), echoSkill.files[0]!.content)
    expect(await h.call('run_skill', { name: 'echo-args', args: ['back'] })).toMatchObject({ status: 'success', meta: { skill: { revision: 2 } } })
    expect(await h.ipc('list', { agentId: 'coder' })).toMatchObject({ ok: true, value: [{ approvedRevision: 2, revisions: [{ revision: 3, state: 'rejected' }, { revision: 2, state: 'approved' }, { revision: 1, state: 'approved' }] }] })
  }, 120_000)

  it('a symlinked skill file and an oversized one are refused, and neither is recorded as a revision', async () => {
    const before = h.host.store.skills.revisions('coder', 'echo-args').length
    writeFileSync(join(h.workspace, 'scratch', 'other.py'), 'print("elsewhere")\n')
    unlinkSync(join(h.skillDir, 'main.py'))
    symlinkSync('../../scratch/other.py', join(h.skillDir, 'main.py'))
    expect(await h.call('run_skill', { name: 'echo-args' })).toMatchObject({ status: 'blocked', error: { code: 'skill.unsafe_file', message: expect.stringMatching(/skills\/echo-args\/main.py is a symbolic link/) } })
    // persist_skill does not write through it either.
    expect(await h.call('persist_skill', echoSkill)).toMatchObject({ status: 'blocked', error: { code: 'skill.unsafe_file' } })
    expect(readFileSync(join(h.workspace, 'scratch', 'other.py'), 'utf8')).toBe('print("elsewhere")\n')
    unlinkSync(join(h.skillDir, 'main.py'))
    writeFileSync(join(h.skillDir, 'main.py'), echoSkill.files[0]!.content)

    writeFileSync(join(h.skillDir, 'data.bin'), Buffer.alloc(4 * 1024 * 1024 + 1))
    expect(await h.call('run_skill', { name: 'echo-args' })).toMatchObject({ status: 'blocked', error: { code: 'skill.too_large', message: expect.stringMatching(/data.bin is 4194305 bytes/) } })
    expect(h.host.store.skills.revisions('coder', 'echo-args')).toHaveLength(before)
    // Saving again makes the folder exactly the skill: the stray file is gone, and it runs (revision 2's content).
    expect(await h.call('persist_skill', { ...echoSkill, files: [echoSkill.files[0]!, { path: 'lib/fmt.py', content: echoSkill.files[1]!.content.replace('args=', 'ARGS=') }] })).toMatchObject({ ok: true, data: { revision: 2, state: 'approved' } })
    expect(await h.call('run_skill', { name: 'echo-args', args: ['ok'] })).toMatchObject({ status: 'success' })
  }, 120_000)

  it('refuses bad input at the boundary and a skill that does not exist', async () => {
    expect(await h.call('persist_skill', { ...echoSkill, files: [...echoSkill.files, { path: 'SKILL.md', content: '---\n' }] })).toMatchObject({ status: 'error', error: { message: expect.stringMatching(/SKILL.md is written by Airlock/) } })
    expect(await h.call('persist_skill', { ...echoSkill, entry: 'missing.py' })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/entry.*missing.py is not one of the files/) } })
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
    expect(await h.ipc('reject', { agentId: 'coder', name: 'echo-args', revision: 1, reason: '  ' })).toMatchObject({ ok: false, error: { code: 'validation_failed', message: expect.stringMatching(/^input\.reason: /) } })
    expect(await h.ipc('approve', { agentId: 'coder', name: 'echo-args', revision: 1, force: true })).toMatchObject({ ok: false, error: { code: 'validation_failed', message: expect.stringMatching(/force/) } })
    expect(await h.ipc('approve', { agentId: 'coder', name: '../x', revision: 1 })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^input\.name: /) } })
    expect(await h.ipc('approve', { agentId: 'coder', name: 'echo-args', revision: 9 })).toMatchObject({ ok: false, error: { code: 'skill.not_found' } })
    expect(await h.ipc('reject', { agentId: 'coder', name: 'echo-args', revision: 1, reason: 'no' })).toMatchObject({ ok: true, value: { state: 'rejected', reason: 'no' } })
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
    h.host.agents.agents.remove('coder')
    h.host.agents.agents.create('coder')
    expect(await h.ipc('list', { agentId: 'coder' })).toEqual({ ok: true, value: [] })
  })
})
