// git in the agent's workspace (issue 26): a coding agent commits, branches and diffs in its own
// workspace on every sandbox — as root, where sandboxes hold the dedicated uid and the workspace
// root is root's, and as an ordinary user (as-unprivileged-user reruns this file as uid 65534).
// Nothing more than the workspace is trusted: no `safe.directory=*`, no host git config. And a
// hostile repository config (fsmonitor, hooksPath, pager) runs only inside the sandbox, as the
// sandbox uid: nothing on the host. Real host, real bubblewrap, a real Docker session container.
import { randomUUID } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sandboxIdentity } from '../../src/main/core'
import { sandboxAgent } from '../support/sandbox-agent'
import { workspaceSandboxes } from '../support/sandbox-providers'

const sandboxes = await workspaceSandboxes()

describe.each(sandboxes)('git in a $provider workspace', ({ provider, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined)
  else gitCases(provider)
})

function gitCases(provider: string): void {
  const agent = sandboxAgent(provider, { prefix: 'airlock-git-', profile: { capabilities: ['files', 'shell'], ask: 'never' } })
  const { call, run } = agent

  it('init, add, commit, log, branch, status and diff work in a project written with the file tools', async () => {
    for (const [path, content] of Object.entries({
      'package.json': '{ "name": "demo", "version": "1.0.0" }\n',
      'src/index.js': 'console.log("hi")\n',
      'README.md': '# demo\n'
    })) {
      expect((await call('write_file', { path, content })).status).toBe('success')
    }
    const who = '-c user.email=agent@example.com -c user.name=agent'
    const made = await run(
      `git init -q && git add -A && git ${who} commit -q -m first && git log --oneline && git branch feature && git branch --list && git status --short && echo '// more' >> src/index.js && git diff --stat`
    )
    expect(made.stderr).not.toMatch(/dubious ownership/)
    expect(made.exitCode, made.stderr).toBe(0)
    expect(made.stdout).toMatch(/^[0-9a-f]{7,} first$/m)
    expect(made.stdout).toMatch(/^\s+feature$/m)
    expect(made.stdout).toMatch(/1 file changed, 1 insertion/)
    // A second call (a fresh run in the same session) goes on with the same repository.
    const again = await run(`git ${who} commit -q -am second && git log --oneline | wc -l && git status --porcelain | wc -l`)
    expect(again).toMatchObject({ exitCode: 0, stdout: '2\n0\n' })
  }, 120_000)

  it('only the workspace roots are trusted: the sandbox’s git configuration names them exactly, never `*`', async () => {
    // The env names exactly the workspace root, never `*`.
    const env = await run('env | grep ^GIT_CONFIG_ | sort')
    expect(env.stdout).toContain(`GIT_CONFIG_KEY_0=safe.directory`)
    expect(env.stdout).not.toMatch(/GIT_CONFIG_VALUE_\d+=\*$/m)
    expect(env.stdout).toContain(agent.workspace)
  }, 60_000)

  it('a hostile .git/config (fsmonitor, hooksPath, pager) runs only inside the sandbox, as the sandbox uid — nothing on the host', async () => {
    const hostMarker = join('/tmp', `airlock-git-pwned-${randomUUID()}`)
    const hooks = join(agent.workspace, 'hooks')
    mkdirSync(hooks, { recursive: true })
    const hook = join(hooks, 'pre-commit')
    writeFileSync(hook, `#!/bin/sh\ntouch ${hostMarker}\ntouch "$GIT_WORK_TREE/hook-ran" 2>/dev/null || touch hook-ran\nexit 0\n`)
    chmodSync(hook, 0o755)
    const config = join(agent.workspace, '.git', 'config')
    writeFileSync(
      config,
      `[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tfsmonitor = "touch ${hostMarker}; touch fsmonitor-ran; false"\n\thooksPath = ${hooks}\n\tpager = touch ${hostMarker}\n`
    )
    const ran = await run('git status --short >/dev/null; git -c user.email=a@b -c user.name=a commit -q --allow-empty -m hooked; git -p log -1 --oneline; ls')
    // What the config names ran — inside the sandbox, where /tmp is the sandbox's own.
    expect(ran.stdout).toContain('fsmonitor-ran')
    expect(ran.stdout).toContain('hook-ran')
    expect(existsSync(hostMarker)).toBe(false)
    // As the sandbox's uid, not the host's (when Airlock is root, never root).
    const owner = statSync(join(agent.workspace, 'fsmonitor-ran')).uid
    expect(owner).toBe(sandboxIdentity().uid)
    if (process.getuid?.() === 0) expect(owner).not.toBe(0)
  }, 120_000)
}
