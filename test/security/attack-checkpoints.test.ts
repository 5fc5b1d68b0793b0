import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sandboxAgent } from '../support/sandbox-agent'
import { workspaceSandboxes } from '../support/sandbox-providers'

// Issue 28: workspace checkpoints keep every change's content under <home>/checkpoints. The
// store must be out of every sandbox's reach (it holds what the agent deleted, and what other
// agents wrote), and everything a sandbox can write into its workspace (links, FIFOs, odd names,
// a hostile .git) is hostile input to the host side that walks, stores and restores it. trusted_local
// runs as the operator with no isolation (its probe says so): it can read the home like any of the
// operator's programs, so it is not attacked here.

const canary = `checkpoint-canary-${process.pid}-${Date.now()}`

describe.each(await workspaceSandboxes())('checkpoints against $provider', ({ provider, skip }) => {
  describe.skipIf(skip !== undefined)(`${provider}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const agent = sandboxAgent(provider, { prefix: 'airlock-attack-checkpoints-', profile: { ask: 'never' } })
    const store = () => join(agent.host.paths.home, 'checkpoints')

    it('the store cannot be read, listed or written from inside: the only copy of a deleted secret the sandbox sees is none', async () => {
      await agent.call('write_file', { path: 'secret.txt', content: canary })
      const deleted = await agent.call('run_command', { command: 'rm secret.txt' })
      expect(deleted.ok).toBe(true)
      // The store holds the deleted file (a revert needs it)…
      const objects = readdirSync(join(store(), 'objects'), { recursive: true }) as string[]
      expect(objects.some((name) => name.length > 60 && readFileSync(join(store(), 'objects', name)).toString() === canary)).toBe(true)
      // …and nothing inside the sandbox can find it: by path, through /proc, or by searching every file it can see.
      const home = agent.host.paths.home
      const looked = await agent.run(
        [
          `cat ${store()}/objects/*/* 2>&1 | head -c 200`,
          `ls -la ${store()} ${home} 2>&1 | head -20`,
          `cat /proc/1/root${store()}/objects/*/* 2>&1 | head -c 200`,
          `(echo planted > ${store()}/objects/planted) 2>&1`,
          `grep -rls ${canary} /var /srv /opt /mnt /tmp /run ${join(home, '..')} 2>/dev/null | grep -v '^${agent.workspace}' | head -5`,
          'echo end'
        ].join('; ')
      )
      expect(looked.stdout).not.toContain(canary)
      expect(looked.stdout).toContain('end')
      expect(existsSync(join(store(), 'objects', 'planted'))).toBe(false)
    }, 180_000)

    it.runIf(process.getuid?.() === 0)(
      'a restored file keeps its owner: the operator’s root-only file the agent deleted does not come back readable by the agent',
      async () => {
        await agent.run('mkdir -p conf')
        writeFileSync(join(agent.workspace, 'conf', 'secrets.env'), `TOKEN=${canary}\n`, { mode: 0o600 })
        const removed = await agent.call('run_command', { command: 'rm -f conf/secrets.env' })
        expect(removed.ok, JSON.stringify(removed.error)).toBe(true)
        expect(existsSync(join(agent.workspace, 'conf', 'secrets.env'))).toBe(false)
        await agent.host.agents.checkpoints.revert(removed.meta.callId as string)
        const stat = statSync(join(agent.workspace, 'conf', 'secrets.env'))
        expect([stat.uid, stat.mode & 0o7777]).toEqual([0, 0o600])
        const read = await agent.call('run_command', { command: 'cat conf/secrets.env 2>&1; true' })
        expect((read.data as { stdout: string }).stdout).not.toContain(canary)
      },
      120_000
    )

    it('checkpoints taken while a sandboxed process swaps a folder with a link to outside read nothing there and write nothing there', async () => {
      const outside = join(agent.host.paths.home, '..', `race-outside-${provider}`)
      mkdirSync(outside, { recursive: true })
      const secret = `outside-secret-${canary}`
      writeFileSync(join(outside, 'secret.txt'), secret)
      try {
        const loop = [
          'import ctypes, time',
          'libc = ctypes.CDLL(None, use_errno=True)',
          "open('race-ready', 'w').close()",
          'end = time.time() + 3',
          'while time.time() < end:',
          "    libc.renameat2(-100, b'race/d', -100, b'race/l', 2)"
        ].join('\n')
        const racing = agent.call('run_command', {
          command: `mkdir -p race/d && printf decoy > race/d/secret.txt && ln -sfn ${outside} race/l && python3 -c "${loop}"`
        })
        while (!existsSync(join(agent.workspace, 'race-ready'))) await new Promise((resolve) => setTimeout(resolve, 20))
        const writes: string[] = []
        for (let i = 0; i < 30; i++) {
          const written = await agent.call('write_file', { path: `race/d/w-${i}.txt`, content: 'x' })
          if (written.ok) writes.push(written.meta.callId as string)
        }
        expect((await racing).status).toBe('success')
        // Every checkpoint's undo stays inside the workspace too.
        for (const callId of writes) await agent.host.agents.checkpoints.revert(callId).catch(() => undefined)
        expect(readdirSync(outside)).toEqual(['secret.txt'])
        expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(secret)
        const objects = readdirSync(join(store(), 'objects'), { recursive: true }) as string[]
        expect(objects.filter((name) => name.length > 60).some((name) => readFileSync(join(store(), 'objects', name)).toString() === secret)).toBe(false)
      } finally {
        rmSync(outside, { recursive: true, force: true })
      }
    }, 180_000)

    it('a hostile workspace is walked, stored and restored without following links, running anything or losing odd names', async () => {
      const outside = join(agent.host.paths.home, '..', `outside-${provider}`)
      mkdirSync(outside, { recursive: true })
      const marker = join(outside, 'pwned')
      try {
        // Odd names (a newline, invalid UTF-8), a FIFO, a hard link, a link out, a hostile .git whose config would run code.
        const made = await agent.call('run_command', {
          command: [
            'mkdir -p odd .git/hooks && printf one > "odd/$(printf \'new\\nline\')" && printf two > "odd/$(printf \'\\377\\376\')"',
            'mkfifo odd/pipe && printf three > odd/a && ln odd/a odd/hard && ln -s /etc/passwd odd/out',
            `printf '[core]\\n\\tfsmonitor = touch ${marker}\\n[filter "x"]\\n\\tclean = touch ${marker}\\n' > .git/config && printf '* filter=x\\n' > .gitattributes`,
            `printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout`
          ].join(' && ')
        })
        expect(made.ok, JSON.stringify(made.error)).toBe(true)
        const gone = await agent.call('run_command', { command: 'rm -rf odd .git .gitattributes' })
        expect(gone.ok).toBe(true)
        const changes = agent.host.agents.checkpoints.get(gone.meta.callId as string)!.changes
        const names = changes.map((change) => change.path)
        expect(names).toContainEqual(Buffer.from('odd/new\nline'))
        expect(names).toContainEqual(Buffer.from([0x6f, 0x64, 0x64, 0x2f, 0xff, 0xfe]))
        expect(changes.find((change) => change.path.toString() === 'odd/pipe')?.before).toMatchObject({ kind: 'other', kept: false })
        expect(changes.find((change) => change.path.toString() === 'odd/out')?.before).toMatchObject({ kind: 'link', kept: true })
        // A FIFO cannot be made again: the revert is refused, naming it, and changes nothing.
        await expect(agent.host.agents.checkpoints.revert(gone.meta.callId as string)).rejects.toMatchObject({
          code: 'checkpoint.not_kept',
          message: expect.stringContaining('odd/pipe')
        })
        expect(existsSync(join(agent.workspace, 'odd'))).toBe(false)
        // The link's target is recorded as text; /etc/passwd was never read into the store.
        const described = agent.host.agents.checkpoints.describe(gone.meta.callId as string, 500)!
        expect(JSON.stringify(described.files)).not.toContain('root:x:0:0')
        expect(existsSync(marker)).toBe(false)

        // A folder swapped for a link to outside: a revert that would write below it is refused (conflict), a restore writes a real folder.
        const wrote = await agent.call('write_file', { path: 'dir/f.txt', content: 'mine' })
        const swapped = await agent.call('run_command', { command: `rm -rf dir && ln -s ${outside} dir` })
        expect(swapped.ok).toBe(true)
        await expect(agent.host.agents.checkpoints.revert(swapped.meta.callId as string)).resolves.toBeDefined()
        expect(readFileSync(join(agent.workspace, 'dir', 'f.txt'), 'utf8')).toBe('mine')
        const again = await agent.call('run_command', { command: `rm -rf dir && ln -s ${outside} dir` })
        expect(again.ok).toBe(true)
        await expect(agent.host.agents.checkpoints.revert(wrote.meta.callId as string)).rejects.toMatchObject({
          code: 'checkpoint.conflict',
          message: expect.stringContaining('dir')
        })
        expect(readdirSync(outside)).toEqual([])
      } finally {
        rmSync(outside, { recursive: true, force: true })
      }
    }, 180_000)
  })
})
