// Labelled data is visible only to calls that name it (issue 24): a workspace path labelled above
// what a session has read (its taint) and what a call itself names is not in that call's sandbox —
// an empty read-only folder or file covers it — so however a program spells the path (`~/`,
// `$HOME`, `$(pwd)`, `find -exec`, `grep -r`, a computed name), it reads nothing, and the
// session's taint stays what the policy saw. A call that names the path is decided as a labelled
// read, sees it, and raises the taint. Each attack is an agent's `run_command` through the real host
// and a real sandbox (bubblewrap, then a Docker session container), judged on its output, the taint
// and the host's files. A provider that cannot hide (the host runner) does not serve such a call.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActionResult } from '../../src/main/core'
import { createHost, type Host } from '../../src/main/host'
import { createDockerClient } from '../../src/main/providers'
import { ensureTestImages } from '../support/docker-images'
import { workspaceSandboxes } from '../support/sandbox-providers'
import { makeTempDir } from '../support/temp-home'

const sandboxes = await workspaceSandboxes()

const secret = 'LABELLED-7f3a9c-not-for-sandboxes'
const restricted = 'RESTRICTED-51b0-private-key'
type Run = { exitCode: number; stdout: string; stderr: string }

describe.each(sandboxes)('labelled paths are hidden from a $provider sandbox', ({ provider, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined)
  else labelledPathAttacks(provider)
})

function labelledPathAttacks(provider: string): void {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host
  let workspace: string
  let sessionId: string
  const call = (tool: string, input: unknown): Promise<ActionResult> => host.agents.sessions.execute({ sessionId, tool, input })
  const taint = () => host.store.sessions.taint(sessionId)

  beforeAll(async () => {
    if (provider === 'docker') await ensureTestImages(createDockerClient())
    dir = makeTempDir('airlock-labelled-', { outsideTmp: true })
    host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
    await host.recovered
    workspace = host.agents.service.create('reader', {
      profile: {
        capabilities: ['files', 'shell'],
        providers: [provider as 'bubblewrap'],
        ask: 'never',
        classificationCeiling: 'CONFIDENTIAL',
        labels: { paths: { 'secrets/**': 'CONFIDENTIAL', 'deploy/certs/*.pem': 'RESTRICTED' } }
      }
    }).workspace
    sessionId = host.agents.sessions.start('reader', 'test').sessionId
    for (const [path, content] of [
      ['secrets/key', `${secret}\n`],
      ['notes.txt', 'public notes\n']
    ]) {
      expect((await call('write_file', { path, content })).status).toBe('success')
    }
    // Above the agent's ceiling: the operator put it there.
    mkdirSync(join(workspace, 'deploy', 'certs'), { recursive: true })
    writeFileSync(join(workspace, 'deploy', 'certs', 'server.pem'), `${restricted}\n`)
    expect(taint()).toBe('PUBLIC')
  }, 600_000)

  afterAll(async () => {
    await host?.agents.sessions.end(sessionId)
    await host?.dispose()
    dir?.remove()
  })

  // Each attack in a session of its own (taint PUBLIC). `hidden`: the policy cannot follow the
  // spelling, so only the mount stands between the program and the bytes — it must run and read
  // nothing. The others the policy follows (it reads `~` and `$HOME` as the workspace, a recursive
  // read as everything below): blocked, or run with the taint raised — never the bytes at PUBLIC.
  const spellings: [string, string, 'hidden' | 'followed'][] = [
    ['through ~', 'cat ~/secrets/key', 'hidden'],
    ['through $HOME', 'cat "$HOME/secrets/key"', 'hidden'],
    ['through $(pwd)', 'cat "$(pwd)/secrets/key"', 'hidden'],
    ['through a variable built in the line', 'd=sec; cat ${d}rets/key', 'followed'],
    ['through find -exec', 'find . -name key -exec cat {} +', 'hidden'],
    ['through grep -r', 'grep -r LABELLED .', 'hidden'],
    ['through a computed name in python', `python3 -c "print(open('sec' + 'rets/key').read())"`, 'hidden'],
    ['through a script in the workspace', `printf 'print(open("secrets/key").read())' > s.py && python3 s.py`, 'hidden'],
    ['through a name read from a file', 'printf secrets > n.txt; cat "$(cat n.txt)/key"', 'followed'],
    ['through a copy of the whole workspace', 'cp -r . /tmp/all && cat /tmp/all/secrets/key', 'hidden'],
    ['through an archive of the workspace', 'tar cf - . | tar xOf - | grep -a -e LABELLED -e RESTRICTED-', 'hidden'],
    ['a RESTRICTED file found by find', 'find deploy -type f -exec cat {} +', 'hidden'],
    ['through a glob the policy reads as the label', 'cat */key', 'followed'],
    ['through bash -c with a glob', 'bash -c "cat s*/key"', 'followed']
  ]

  for (const [what, command, kind] of spellings) {
    it(`never reads the bytes at PUBLIC ${what}`, async () => {
      const session = host.agents.sessions.start('reader', 'attack').sessionId
      try {
        const result = await host.agents.sessions.execute({ sessionId: session, tool: 'run_command', input: { command: `${command}; echo "exit=$?"` } })
        const output = JSON.stringify(result.data ?? '')
        expect(output).not.toContain(restricted)
        if (output.includes(secret)) expect(host.store.sessions.taint(session)).toBe('CONFIDENTIAL')
        if (kind === 'hidden') {
          expect(result.status, JSON.stringify(result.error)).toBe('success')
          expect(output).not.toContain(secret)
          expect(result.diagnostics.join('\n')).toMatch(/hidden from this command .*secrets/)
          expect(host.store.sessions.taint(session)).toBe('PUBLIC')
        }
      } finally {
        await host.agents.sessions.end(session)
      }
    })
  }

  it('cannot write into, move or remove what is hidden (the host files stay as they were)', async () => {
    // Names spelled so the policy does not see them: only the mount holds.
    const result = await call('run_command', {
      command: `python3 -c "import os, shutil; open('sec'+'rets/new','w')" ; python3 -c "import os; os.rename('sec'+'rets', 'pub')"; python3 -c "import shutil; shutil.rmtree('sec'+'rets')"; echo done`
    })
    expect((result.data as Run).stdout).toBe('done\n')
    expect(readFileSync(join(workspace, 'secrets', 'key'), 'utf8')).toBe(`${secret}\n`)
    expect(readFileSync(join(workspace, 'deploy', 'certs', 'server.pem'), 'utf8')).toBe(`${restricted}\n`)
    expect(existsSync(join(workspace, 'secrets', 'new'))).toBe(false)
    expect(existsSync(join(workspace, 'pub'))).toBe(false)
  })

  it('what is not labelled is there as usual', async () => {
    const result = await call('run_command', { command: 'cat notes.txt && ls deploy' })
    expect(result.data).toMatchObject({ exitCode: 0, stdout: 'public notes\ncerts\n' })
  })

  it('a call naming a path above the ceiling is blocked (ask: never) and sees nothing', async () => {
    const result = await call('run_command', { command: 'cat deploy/certs/server.pem' })
    expect(result).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'classification.above_ceiling' } } })
    expect(taint()).toBe('PUBLIC')
  })

  it('a call that names the labelled path reads it and raises the taint; the RESTRICTED file stays hidden from it', async () => {
    const result = await call('run_command', { command: 'cat secrets/key; find . -name "*.pem" -exec cat {} +' })
    expect(result.status, JSON.stringify(result.error)).toBe('success')
    expect((result.data as Run).stdout).toBe(`${secret}\n`)
    expect(result.meta.policy).toMatchObject({ classification: { reads: 'CONFIDENTIAL' }, taintAfter: 'CONFIDENTIAL' })
    expect(taint()).toBe('CONFIDENTIAL')
  })

  it('once the session holds CONFIDENTIAL data, later calls see that level (write-down follows from the taint), never above it', async () => {
    const result = await call('run_command', { command: 'cat "$(pwd)/secrets/key"; grep -r RESTRICTED- . ; echo end' })
    expect((result.data as Run).stdout).toBe(`${secret}\nend\n`)
  })
}

describe('a provider that cannot hide labelled paths does not serve the call', () => {
  it('the host runner (read-only programs, no mounts of its own) is not eligible while something is labelled above the session', async () => {
    const dir = makeTempDir('airlock-labelled-host-', { outsideTmp: true })
    const host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
    try {
      await host.recovered
      host.agents.service.create('lister', {
        profile: {
          capabilities: ['files', 'shell'],
          providers: ['bash'],
          ask: 'never',
          classificationCeiling: 'CONFIDENTIAL',
          labels: { paths: { 'secrets/**': 'CONFIDENTIAL' } }
        }
      })
      const { sessionId } = host.agents.sessions.start('lister', 'test')
      const call = (tool: string, input: unknown) => host.agents.sessions.execute({ sessionId, tool, input })
      expect((await call('write_file', { path: 'secrets/key', content: `${secret}\n` })).status).toBe('success')
      const result = await call('run_command', { command: 'grep -r LABELLED .' })
      expect(result.status).toBe('error')
      expect(result.error?.message).toMatch(/cannot hide the workspace's labelled paths .*secrets/)
      expect(JSON.stringify(result.data ?? '')).not.toContain(secret)
      await host.agents.sessions.end(sessionId)
    } finally {
      await host.dispose()
      dir.remove()
    }
  })
})
