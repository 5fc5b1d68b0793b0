import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { echoSkill, runData, skillHost } from '../support/skill-host'

// Attacks on skills by the agent that owns the workspace (SPEC §6.4): the skill folder is the
// agent's to write at any moment, so what runs must be exactly the content the operator approved
// (kept in the store), whatever the folder holds, whenever it changes.

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
    const swapper = spawn('python3', ['-c', [
      'import os, sys, itertools',
      'target, scratch, good, evil = sys.argv[1:5]',
      'for i in itertools.count():',
      '    tmp = os.path.join(scratch, f"swap-{i % 2}")',
      '    open(tmp, "w").write(good if i % 2 == 0 else evil)',
      '    os.rename(tmp, target)'
    ].join('\n'), join(h.skillDir, 'main.py'), join(h.workspace, 'scratch'), good, evil], { stdio: 'ignore' })
    const outcomes: string[] = []
    try {
      // Race only once the swapper is swapping.
      for (let i = 0; i < 400 && !readFileSync(join(h.skillDir, 'main.py'), 'utf8').includes('EVIL'); i++) await new Promise((resolve) => setTimeout(resolve, 10))
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
          expect(['skill.not_approved', 'skill.unsafe_file']).toContain(result.error?.code)
          outcomes.push(result.error!.code)
        }
        expect(JSON.stringify(result)).not.toContain('EVIL ran')
      }
    } finally {
      swapper.kill('SIGKILL')
    }
    expect(outcomes).toContain('ran')
    // The evil content was recorded once, as a revision that waits; it never ran.
    const revisions = h.host.store.skills.revisions('coder', echoSkill.name)
    expect(revisions.length).toBeLessThanOrEqual(2)
    for (const revision of revisions.filter((r) => r.revision !== approved.revision)) expect(revision.state).toBe('pending_approval')
    writeFileSync(join(h.skillDir, 'main.py'), good)
    expect(await h.call('run_skill', { name: echoSkill.name })).toMatchObject({ status: 'success' })
  }, 180_000)

  it('a SKILL.md that claims another entry or language after approval is a change: refused, recorded as what it claims, never run as approved', async () => {
    const name = 'two-entries'
    const files = [{ path: 'main.py', content: 'print("main")\n' }, { path: 'other.py', content: 'print("other")\n' }]
    await h.call('persist_skill', { name, description: 'Two programs.', entry: 'main.py', language: 'python', files })
    const approved = await approveLatest(name)
    const document = join(h.workspace, 'skills', name, 'SKILL.md')
    const original = readFileSync(document, 'utf8')
    expect(runData(await h.call('run_skill', { name })).stdout).toBe('main\n')

    writeFileSync(document, original.replace('entry: "main.py"', 'entry: "other.py"'))
    const switched = await h.call('run_skill', { name })
    expect(switched).toMatchObject({ status: 'blocked', error: { code: 'skill.not_approved' }, meta: { skill: { revision: approved.revision + 1 } } })
    expect(h.host.store.skills.get('coder', name, approved.revision + 1)?.manifest).toMatchObject({ entry: 'other.py', language: 'python' })

    writeFileSync(document, original.replace('language: "python"', 'language: "bash"'))
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.not_approved' }, meta: { skill: { revision: approved.revision + 2 } } })
    expect(h.host.store.skills.get('coder', name, approved.revision + 2)?.manifest).toMatchObject({ entry: 'main.py', language: 'bash' })

    // A SKILL.md that cannot describe a runnable skill is refused without a revision.
    writeFileSync(document, original.replace('entry: "main.py"', 'entry: "missing.py"'))
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.invalid_manifest', message: expect.stringMatching(/missing.py is not one of the skill's files/) } })
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
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.unsafe_file', message: expect.stringMatching(/skills\/linked is a symbolic link/) } })
    rmSync(folder)
    renameSync(join(h.workspace, 'scratch', 'moved'), folder)
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'success' })

    // A FIFO would block a reader forever; it is refused at once.
    execFileSync('mkfifo', [join(folder, 'pipe')])
    const started = Date.now()
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.unsafe_file', message: expect.stringMatching(/pipe is not a regular file/) } })
    expect(Date.now() - started).toBeLessThan(5_000)
    rmSync(join(folder, 'pipe'))

    // A hard link may be a file outside the workspace (here: the host's own database).
    linkSync(h.host.paths.database, join(folder, 'db'))
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.unsafe_file', message: expect.stringMatching(/hard links/) } })
    rmSync(join(folder, 'db'))

    // A nested folder that is a link to somewhere outside.
    mkdirSync(join(folder, 'lib'))
    symlinkSync('/etc', join(folder, 'lib', 'etc'))
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'blocked', error: { code: 'skill.unsafe_file' } })
    expect(h.host.store.skills.revisions('coder', name)).toHaveLength(1)
    // persist_skill puts the folder back to exactly the skill: the link is removed, not followed.
    expect(await h.call('persist_skill', { name, description: 'Linked.', entry: 'main.py', language: 'python', files: [{ path: 'main.py', content: good }] })).toMatchObject({ data: { revision: 1, state: 'approved' } })
    expect(readFileSync('/etc/hostname', 'utf8').length).toBeGreaterThan(0)
    expect(await h.call('run_skill', { name })).toMatchObject({ status: 'success' })
  }, 120_000)
})
