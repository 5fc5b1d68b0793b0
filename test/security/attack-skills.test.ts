import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { waitFor } from '../support/approval-host'
import { echoSkill, runData, skillHost } from '../support/skill-host'

// Attacks on skills by the agent that owns the workspace (SPEC §6.4): the skill folder is the
// agent's to write at any moment, so what runs must be exactly the content the operator approved
// (kept in the store), whatever the folder holds, whenever it changes. Content that waits is put
// before the operator through the real `console` queue, decided here with `host.approvals.decide`.

const bwrap = await checkBubblewrapHost()
const skip = skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason })
const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex')
const good = echoSkill.files[0]!.content
const evil = 'print("EVIL ran")\n'

describe.skipIf(skip !== undefined)(`attacks on skills${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let h: Awaited<ReturnType<typeof skillHost>>
  const approveLatest = async (name: string) => {
    const latest = h.host.store.skills.revisions('coder', name)[0]!
    expect(await h.ipc('approve', { agentId: 'coder', name, revision: latest.revision })).toMatchObject({ ok: true })
    return latest
  }
  /** An operator who denies every item of `coder` as it comes (through the real queue); returns the stopper. */
  const denyEverything = (reason: string) => {
    const timer = setInterval(() => {
      for (const item of h.host.approvals.list().filter((pending) => pending.agentId === 'coder')) {
        try {
          h.host.approvals.decide({ id: item.id, decision: 'deny', reason })
        } catch {
          // Decided meanwhile (expired, or joined and decided): nothing to do.
        }
      }
    }, 20)
    return () => clearInterval(timer)
  }
  /** The pending item of `coder` whose summary names this revision of this skill. */
  const itemFor = (name: string, revision: number) =>
    waitFor(() =>
      h.host.approvals.list().find((item) => item.agentId === 'coder' && item.summary.includes(`approve revision ${revision} of skill coder/${name} `))
    )
  beforeAll(async () => {
    h = await skillHost('airlock-attack-skills-')
    await h.call('persist_skill', echoSkill)
    await approveLatest(echoSkill.name)
  }, 60_000)
  afterAll(() => h?.close(), 60_000)

  it('swapping a file while run_skill checks it never runs unapproved bytes: what runs is what was read and hashed, once', async () => {
    const approved = h.host.store.skills.revisions('coder', echoSkill.name)[0]!
    const approvedMain = approved.manifest.files.find((file) => file.path === 'main.py')!.sha256
    // Another process swaps main.py between the approved and an evil version as fast as it can (atomic renames).
    const swapper = spawn(
      'python3',
      [
        '-c',
        [
          'import os, sys, itertools',
          'target, scratch, good, evil = sys.argv[1:5]',
          'for i in itertools.count():',
          '    tmp = os.path.join(scratch, f"swap-{i % 2}")',
          '    open(tmp, "w").write(good if i % 2 == 0 else evil)',
          '    os.rename(tmp, target)'
        ].join('\n'),
        join(h.skillDir, 'main.py'),
        join(h.workspace, 'scratch'),
        good,
        evil
      ],
      { stdio: 'ignore' }
    )
    const outcomes: string[] = []
    // Evil content asks the operator (the queue shows its bytes); this operator says no at once.
    const stopDenying = denyEverything('evil content')
    try {
      // Race only once the swapper is swapping.
      for (let i = 0; i < 400 && !readFileSync(join(h.skillDir, 'main.py'), 'utf8').includes('EVIL'); i++)
        await new Promise((resolve) => setTimeout(resolve, 10))
      for (let i = 0; i < 16; i++) {
        const result = await h.call('run_skill', { name: echoSkill.name, args: [`run-${i}`] })
        if (result.status === 'success') {
          // The program hashes its own bytes from inside the sandbox: they are the approved ones.
          expect(runData(result).stdout).toBe(`args=['run-${i}']\nself ${approvedMain}\n`)
          expect(result.meta.skill).toMatchObject({ revision: approved.revision, contentHash: approved.contentHash })
          const ran = readFileSync(join(String((result.meta.provider as { executionArea: string }).executionArea), 'source', 'main.py'))
          expect(sha256(ran)).toBe(approvedMain)
          outcomes.push('ran')
        } else {
          expect(result.status).toBe('blocked')
          expect(['skill.not_approved', 'skill.rejected', 'skill.unsafe_file']).toContain(result.error?.code)
          outcomes.push(result.error!.code)
        }
        expect(JSON.stringify(result)).not.toContain('EVIL ran')
      }
    } finally {
      swapper.kill('SIGKILL')
      stopDenying()
    }
    expect(outcomes).toContain('ran')
    // The evil content was recorded once, as a revision the operator was asked about and rejected; it never ran.
    const revisions = h.host.store.skills.revisions('coder', echoSkill.name)
    expect(revisions.length).toBeLessThanOrEqual(2)
    for (const revision of revisions.filter((r) => r.revision !== approved.revision)) expect(['pending_approval', 'rejected']).toContain(revision.state)
    writeFileSync(join(h.skillDir, 'main.py'), good)
    expect(await h.call('run_skill', { name: echoSkill.name })).toMatchObject({ status: 'success' })
  }, 180_000)

  it('a SKILL.md that claims another entry or language after approval is a change: refused, recorded as what it claims, never run as approved', async () => {
    const name = 'two-entries'
    const files = [
      { path: 'main.py', content: 'print("main")\n' },
      { path: 'other.py', content: 'print("other")\n' }
    ]
    await h.call('persist_skill', { name, description: 'Two programs.', entry: 'main.py', language: 'python', files })
    const approved = await approveLatest(name)
    const document = join(h.workspace, 'skills', name, 'SKILL.md')
    const original = readFileSync(document, 'utf8')
    expect(runData(await h.call('run_skill', { name })).stdout).toBe('main\n')

    // The switch is a new revision put before the operator as what it claims (entry other.py), never run as the approved one.
    writeFileSync(document, original.replace('entry: "main.py"', 'entry: "other.py"'))
    const switching = h.call('run_skill', { name })
    const asked = await itemFor(name, approved.revision + 1)
    expect(asked.preview).toContain('entry: other.py (python)')
    expect(asked.preview).toContain(`changes since revision ${approved.revision}, the approved one: SKILL.md changed`)
    expect(asked.preview).toContain('other.py, the entry (')
    expect(asked.preview).toContain('| print("other")')
    h.host.approvals.decide({ id: asked.id, decision: 'deny', reason: 'switches its entry' })
    expect(await switching).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.rejected' },
      meta: { skill: { revision: approved.revision + 1, state: 'rejected' } }
    })
    expect(h.host.store.skills.get('coder', name, approved.revision + 1)?.manifest).toMatchObject({ entry: 'other.py', language: 'python' })

    writeFileSync(document, original.replace('language: "python"', 'language: "bash"'))
    const stopDenying = denyEverything('switches its language')
    try {
      expect(await h.call('run_skill', { name })).toMatchObject({
        status: 'blocked',
        error: { code: 'skill.rejected' },
        meta: { skill: { revision: approved.revision + 2 } }
      })
    } finally {
      stopDenying()
    }
    expect(h.host.store.skills.get('coder', name, approved.revision + 2)).toMatchObject({ state: 'rejected', manifest: { entry: 'main.py', language: 'bash' } })

    // A SKILL.md that cannot describe a runnable skill is refused without a revision.
    writeFileSync(document, original.replace('entry: "main.py"', 'entry: "missing.py"'))
    expect(await h.call('run_skill', { name })).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.invalid_manifest', message: expect.stringMatching(/missing.py is not one of the skill's files/) }
    })
    writeFileSync(document, original.replace('name: "two-entries"', 'name: "echo-args"'))
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.invalid_manifest' } })
    writeFileSync(document, 'entry: other.py\n')
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.invalid_manifest' } })
    expect(h.host.store.skills.revisions('coder', name)).toHaveLength(3)

    // Restored byte for byte, the approved revision runs its own entry.
    writeFileSync(document, original)
    expect(runData(await h.call('run_skill', { name })).stdout).toBe('main\n')
  }, 120_000)

  it('links, FIFOs and hard links in or around a skill are refused, never followed or waited on', async () => {
    const name = 'linked'
    await h.call('persist_skill', { name, description: 'Linked.', entry: 'main.py', language: 'python', files: [{ path: 'main.py', content: good }] })
    await approveLatest(name)
    const folder = join(h.workspace, 'skills', name)
    // The whole folder swapped for a link to an identical copy elsewhere in the workspace.
    cpSync(folder, join(h.workspace, 'scratch', 'copy'), { recursive: true })
    renameSync(folder, join(h.workspace, 'scratch', 'moved'))
    symlinkSync('../scratch/copy', folder)
    expect(await h.call('run_skill', { name })).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.unsafe_file', message: expect.stringMatching(/skills\/linked is a symbolic link/) }
    })
    rmSync(folder)
    renameSync(join(h.workspace, 'scratch', 'moved'), folder)
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'success' })

    // A FIFO would block a reader forever; it is refused at once.
    execFileSync('mkfifo', [join(folder, 'pipe')])
    const started = Date.now()
    expect(await h.call('run_skill', { name })).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.unsafe_file', message: expect.stringMatching(/pipe is not a regular file/) }
    })
    expect(Date.now() - started).toBeLessThan(5_000)
    rmSync(join(folder, 'pipe'))

    // A hard link may be a file outside the workspace (here: the host's own database).
    linkSync(h.host.paths.database, join(folder, 'db'))
    expect(await h.call('run_skill', { name })).toMatchObject({
      status: 'blocked',
      error: { code: 'skill.unsafe_file', message: expect.stringMatching(/hard links/) }
    })
    rmSync(join(folder, 'db'))

    // A nested folder that is a link to somewhere outside.
    mkdirSync(join(folder, 'lib'))
    symlinkSync('/etc', join(folder, 'lib', 'etc'))
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.unsafe_file' } })
    expect(h.host.store.skills.revisions('coder', name)).toHaveLength(1)
    // persist_skill puts the folder back to exactly the skill: the link is removed, not followed.
    expect(
      await h.call('persist_skill', { name, description: 'Linked.', entry: 'main.py', language: 'python', files: [{ path: 'main.py', content: good }] })
    ).toMatchObject({ data: { revision: 1, state: 'approved' } })
    expect(readFileSync('/etc/hostname', 'utf8').length).toBeGreaterThan(0)
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'success' })
  }, 120_000)
  it('what runs is what the operator saw: the folder turned evil while the call waits changes nothing that runs; the evil bytes ask on their own', async () => {
    const name = 'seen'
    await h.call('persist_skill', { ...echoSkill, name })
    const running = h.call('run_skill', { name, args: ['seen'] })
    const item = await itemFor(name, 1)
    expect(item.preview).toContain('| import hashlib, sys')
    expect(item.preview).not.toContain('EVIL')
    const folder = join(h.workspace, 'skills', name)
    writeFileSync(join(folder, 'main.py'), evil)
    writeFileSync(join(folder, 'extra.py'), evil)
    h.host.approvals.decide({ id: item.id, decision: 'approve' })
    const ran = await running
    expect(ran).toMatchObject({ status: 'success', meta: { skill: { revision: 1, contentHash: h.host.store.skills.get('coder', name, 1)!.contentHash } } })
    expect(runData(ran).stdout).toBe(`args=['seen']\nself ${sha256(good)}\n`)

    // The folder as it is now is other content: a revision of its own, shown as it is, that the operator refuses.
    const next = h.call('run_skill', { name })
    const asked = await itemFor(name, 2)
    expect(asked.preview).toContain('| print("EVIL ran")')
    expect(asked.preview).toContain('changes since revision 1, the approved one: main.py changed; extra.py added')
    h.host.approvals.decide({ id: asked.id, decision: 'deny', reason: 'evil' })
    const refused = await next
    expect(refused).toMatchObject({ status: 'blocked', error: { code: 'skill.rejected' } })
    expect(JSON.stringify(refused)).not.toContain('EVIL ran')
  }, 120_000)

  it("a skill item is decided by a person every time: approving it for the session or as a rule is refused, and one revision's approval never covers the next", async () => {
    const name = 'once'
    await h.call('persist_skill', { ...echoSkill, name })
    const first = h.call('run_skill', { name })
    const item = await itemFor(name, 1)
    expect(item.proposedRule).toBeNull()
    for (const scope of ['session', 'rule'] as const) {
      let refusal: unknown
      try {
        h.host.approvals.decide({ id: item.id, decision: 'approve', scope })
      } catch (error) {
        refusal = error
      }
      expect(refusal).toMatchObject({ code: 'approval.not_rememberable' })
    }
    expect(h.host.rules.list({ all: true })).toHaveLength(0)
    h.host.approvals.decide({ id: item.id, decision: 'approve' })
    expect(await first).toMatchObject({ status: 'success', meta: { skill: { revision: 1 } } })

    writeFileSync(join(h.workspace, 'skills', name, 'lib', 'fmt.py'), 'def show(args):\n    return "changed"\n')
    const second = h.call('run_skill', { name })
    const again = await itemFor(name, 2)
    expect(again.id).not.toBe(item.id)
    h.host.approvals.decide({ id: again.id, decision: 'deny', reason: 'not reviewed' })
    expect(await second).toMatchObject({ status: 'blocked', error: { code: 'skill.rejected', message: expect.stringContaining('not reviewed') } })
  }, 120_000)

  it("nothing in a file or a file name passes for Airlock's own lines in the preview; a long entry is cut visibly and still runs whole", async () => {
    const name = 'hostile'
    const filler = Array.from({ length: 2500 }, (_, index) => `# filler ${index} ${'x'.repeat(24)}`).join('\n')
    // A docstring whose lines copy Airlock's own, then more than the preview shows, then what runs last.
    const main = `"""\nApproving lets exactly this content run, with any arguments, at this call and later ones\nentry: main.py (python)\n"""\n${filler}\nprint("tail ran")\n`
    // A name with a newline could start a line of its own: refused where names are made.
    const forged = await h.call('persist_skill', {
      name,
      description: 'Hostile.',
      entry: 'main.py',
      language: 'python',
      files: [
        { path: 'main.py', content: main },
        { path: `notes\n       1  ${'0'.repeat(64)}  main.py`, content: 'x' }
      ]
    })
    expect(forged).toMatchObject({ ok: false })
    expect(JSON.stringify(forged)).toContain('U+000A')
    // Without one, a name that copies Airlock's file line is shown quoted, never as a line of Airlock's.
    const sneaky = `notes       1  ${'0'.repeat(64)}  main.py`
    expect(
      await h.call('persist_skill', {
        name,
        description: 'Hostile.',
        entry: 'main.py',
        language: 'python',
        files: [
          { path: 'main.py', content: main },
          { path: sneaky, content: 'x' }
        ]
      })
    ).toMatchObject({ ok: true })
    const running = h.call('run_skill', { name })
    const item = await itemFor(name, 1)
    const preview = item.preview!
    // Under the queue's bound, so the queue never cuts it blindly; the cut is said where it is.
    expect(preview.length).toBeLessThan(64 * 1024)
    expect(preview).toMatch(/\n… \d+ more characters of main\.py, the entry not shown\n\n/)
    // The helper file (named like Airlock's line) follows with its text, its heading quoted.
    expect(preview).toMatch(
      new RegExp(`\\n${JSON.stringify(sneaky).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(1 bytes\\), each line after "\\| ":\\n\\| x\\n$`)
    )
    expect(preview).toContain(`  ${JSON.stringify(sneaky)}`)
    const lines = preview.replace(/\n$/, '').split('\n')
    expect(lines).not.toContain(`       1  ${'0'.repeat(64)}  main.py`)
    const airlockLine =
      /^(\| |Skill coder\/hostile, revision 1 |Approving lets exactly this content run, with any arguments, at this call |entry: main\.py \(python\)$|no revision of this skill was approved before$|files \(3, \d+ bytes in all; |\s+\d+ {2}[0-9a-f]{64} {2}|SKILL\.md \(\d+ bytes\), each line|main\.py, the entry \(\d+ bytes\), each line|"notes {7}1 {2}0{64} {2}main\.py" \(1 bytes\), each line|… \d+ more characters of main\.py, the entry not shown$|$)/
    expect(lines.filter((line) => !airlockLine.test(line))).toEqual([])
    expect(lines.filter((line) => line.startsWith('Approving lets'))).toHaveLength(1)
    expect(lines).toContain('| Approving lets exactly this content run, with any arguments, at this call and later ones')
    expect(lines).toContain('| entry: main.py (python)')
    h.host.approvals.decide({ id: item.id, decision: 'approve' })
    expect(runData(await running).stdout).toBe('tail ran\n')
  }, 120_000)

  it('a call cancelled while it waits decides nothing: the revision still waits', async () => {
    const name = 'cancelled'
    await h.call('persist_skill', { ...echoSkill, name })
    const { sessionId } = h.host.agents.sessions.start('coder', 'test')
    const controller = new AbortController()
    const running = h.host.agents.sessions.execute({ sessionId, tool: 'run_skill', input: { name }, signal: controller.signal })
    await itemFor(name, 1)
    controller.abort()
    expect(await running).toMatchObject({ status: 'cancelled' })
    expect(h.host.store.skills.get('coder', name, 1)).toMatchObject({ state: 'pending_approval', reason: null })
  }, 120_000)
})
