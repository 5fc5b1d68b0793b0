import { execFileSync } from 'node:child_process'
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { ExecutionResourceManager, sandboxIdentity, type CommandRunner } from '../../core'
import { BashProvider } from './bash-provider'

let dir: ReturnType<typeof makeTempDir>
let workspace: string
let manager: ExecutionResourceManager
let runner: CommandRunner

beforeEach(async () => {
  dir = makeTempDir('airlock-host-runner-', { outsideTmp: true })
  workspace = join(dir.path, 'workspace')
  mkdirSync(join(workspace, 'src'), { recursive: true })
  writeFileSync(join(workspace, 'src', 'app.ts'), 'export const answer = 42\n')
  writeFileSync(join(dir.path, 'outside.txt'), 'secret outside the workspace\n')
  symlinkSync(join(dir.path, 'outside.txt'), join(workspace, 'link-out'))
  symlinkSync(dir.path, join(workspace, 'dir-out'))
  manager = new ExecutionResourceManager().registerProvider(new BashProvider())
  const handle = await manager.ensure({ kind: 'bash', providerId: 'bash', policy: { workspaceRoots: [workspace], timeoutSeconds: 5, maxOutputBytes: 4096 } })
  runner = handle.resource as CommandRunner
})
afterEach(async () => {
  await manager.releaseAll()
  dir.remove()
})

describe('bash provider (host runner)', () => {
  it('runs allowlisted read-only commands in the workspace, without a shell', async () => {
    expect(await runner.run({ command: 'cat src/app.ts' })).toMatchObject({ stdout: 'export const answer = 42\n', exitCode: 0 })
    expect((await runner.run({ command: 'ls', cwd: 'src' })).stdout).toBe('app.ts\n')
    expect((await runner.run({ command: 'pwd' })).stdout.trim()).toBe(workspace)
    expect((await runner.run({ command: 'grep -rn "answer" src' })).stdout).toContain('src/app.ts:1:export const answer')
    expect((await runner.run({ command: "find . -name '*.ts'" })).stdout).toContain('./src/app.ts')
  })

  it('binds cwd to the workspace: outside paths and symlinks out are refused, no fallback', async () => {
    await expect(runner.run({ command: 'ls', cwd: '..' })).rejects.toThrow(/outside the workspace/)
    await expect(runner.run({ command: 'ls', cwd: 'dir-out' })).rejects.toThrow(/outside the workspace/)
    await expect(runner.run({ command: 'ls', cwd: '/etc' })).rejects.toThrow(/outside the workspace/)
    await expect(runner.run({ command: 'ls', cwd: 'missing' })).rejects.toThrow(/does not exist/)
  })

  const refused: [string, RegExp][] = [
    ['rm -rf src', /not on this runner's allowlist/],
    ['python3 -c "print(1)"', /not on this runner's allowlist/],
    ['ls; rm -rf src', /shell syntax/],
    ['cat src/app.ts | sh', /shell syntax/],
    ['cat $(echo /etc/passwd)', /shell syntax/],
    ['echo `id`', /shell syntax|not on this/],
    ['cat /etc/passwd', /outside the workspace/],
    ['cat ../outside.txt', /outside the workspace/],
    ['cat link-out', /outside the workspace/],
    ['cat ~/.ssh/id_rsa', /home-relative/],
    ['grep -f/etc/shadow x', /grep -f is not allowed/],
    ['find . -delete', /-delete is not allowed/],
    ['find . -exec rm {} +', /shell syntax|-exec is not allowed/],
    ['find . -execdir touch x ;', /shell syntax|-execdir is not allowed/],
    ['grep -R secret .', /-R is not allowed/],
    ['rg --pre=./evil secret', /--pre=\.\/evil is not allowed/],
    ['git diff --output=/tmp/x', /not allowed/],
    ['git -c core.pager=evil log', /not on this runner's allowlist/]
  ]
  for (const [command, reason] of refused) {
    it(`refuses ${JSON.stringify(command)}`, async () => {
      await expect(runner.run({ command })).rejects.toThrow(reason)
    })
  }

  it('runs git status/log safely and refuses a repository whose config can launch programs', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } })
    git('init', '-q')
    git('-c', 'user.email=a@b', '-c', 'user.name=a', 'add', 'src')
    git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'first')
    expect((await runner.run({ command: 'git log --oneline' })).stdout).toMatch(/first/)
    expect((await runner.run({ command: 'git status --short' })).exitCode).toBe(0)
    writeFileSync(join(workspace, 'src', 'app.ts'), 'export const answer = 43\n')
    expect(await runner.run({ command: 'git status --short -uno', cwd: 'src' })).toMatchObject({ stdout: ' M app.ts\n', exitCode: 0 })
    expect((await runner.run({ command: 'git diff -- app.ts', cwd: 'src' })).stdout).toContain('+export const answer = 43')
    expect((await runner.run({ command: 'git show HEAD:src/app.ts' })).stdout).toBe('export const answer = 42\n')
    expect((await runner.run({ command: 'git log -1 --format=%s -- src' })).stdout).toBe('first\n')
    // Each git run reads a private copy of the checked config; none is left behind.
    // Only this process's: other test files run in parallel workers.
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith(`airlock-git-${process.pid}-`))).toEqual([])
    writeFileSync(join(workspace, '.git', 'config'), '[core]\n\tfsmonitor = ./evil.sh\n', { flag: 'a' })
    await expect(runner.run({ command: 'git status' })).rejects.toThrow(/repository config can make git run programs/)
  })

  it('bounds time and output, and passes env without inheriting the parent environment', async () => {
    writeFileSync(join(workspace, 'big.txt'), 'z'.repeat(100_000))
    const big = await runner.run({ command: 'cat big.txt' })
    expect(big).toMatchObject({ stdoutTruncated: true })
    expect(Buffer.byteLength(big.stdout)).toBe(4096)
    const policyCustom = new ExecutionResourceManager().registerProvider(new BashProvider())
    const handle = await policyCustom.ensure({
      kind: 'bash',
      providerId: 'bash',
      policy: { workspaceRoots: [workspace], allowedCommandPrefixes: ['sleep', 'env'] }
    })
    const custom = handle.resource as CommandRunner
    expect(await custom.run({ command: 'sleep 5', timeoutSeconds: 0.3 })).toMatchObject({ exitCode: 124, timedOut: true })
    process.env.AIRLOCK_PARENT_SECRET = 'must-not-leak'
    const env = await custom.run({ command: 'env', env: { TZ: 'Europe/Paris' } })
    expect(env.stdout).toContain('TZ=Europe/Paris')
    expect(env.stdout).not.toContain('must-not-leak')
    await expect(custom.run({ command: 'env', env: { GREETING: 'hello' } })).rejects.toThrow(/environment variable GREETING is not accepted/)
    await expect(custom.run({ command: 'env', env: { 'BAD NAME': 'x' } })).rejects.toThrow(/not a valid name/)
    await policyCustom.releaseAll()
  })

  it('never runs a program as root: commands hold the sandbox identity (an unprivileged uid when Airlock is root)', async () => {
    const local = new ExecutionResourceManager().registerProvider(new BashProvider())
    const handle = await local.ensure({ kind: 'bash', providerId: 'bash', policy: { workspaceRoots: [workspace], allowedCommandPrefixes: ['id'] } })
    const result = await (handle.resource as CommandRunner).run({ command: 'id' })
    expect(result.stdout).toMatch(new RegExp(`^uid=${sandboxIdentity().uid}\\b`))
    if (process.getuid?.() === 0) expect(result.stdout).not.toMatch(/^uid=0\b/)
    await local.releaseAll()
  })

  it('release ends a running command and refuses new ones', async () => {
    const local = new ExecutionResourceManager().registerProvider(new BashProvider())
    const handle = await local.ensure({ kind: 'bash', providerId: 'bash', policy: { workspaceRoots: [workspace], allowedCommandPrefixes: ['sleep'] } })
    const running = (handle.resource as CommandRunner).run({ command: 'sleep 30' })
    await new Promise((resolve) => setTimeout(resolve, 200))
    await local.release(handle)
    expect(await running).toMatchObject({ cancelled: true })
    await expect((handle.resource as CommandRunner).run({ command: 'sleep 1' })).rejects.toThrow(/released/)
  })

  it('is unavailable without workspace roots, with the reason', async () => {
    const local = new ExecutionResourceManager().registerProvider(new BashProvider())
    await expect(local.ensure({ kind: 'bash', providerId: 'bash' })).rejects.toThrow(/needs policy.workspaceRoots/)
  })
})
