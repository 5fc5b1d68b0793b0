import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { skipReasonFor } from '../../../../test/support/components'
import { ensureTestImages } from '../../../../test/support/docker-images'
import { makeTempDir } from '../../../../test/support/temp-home'
import {
  claimWorkspace,
  ExecutionResourceManager,
  executeCode,
  executionRequirement,
  sandboxIdentity,
  type ExecutionResourceError,
  type ProgramRunner
} from '../../core'
import type { ContainerRunner } from './container-runner'
import { checkEngine, createDockerClient, homeLabel, labels } from './docker-engine'
import { DockerProvider } from './docker-provider'

const docker = createDockerClient()
const engine = await checkEngine(docker)
const skip = skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

describe.skipIf(skip !== undefined)(`docker provider${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let workspace: string
  let manager: ExecutionResourceManager
  let callSeq = 0
  const home = '/tmp/airlock-docker-test-home'

  beforeAll(async () => {
    await ensureTestImages(docker)
    dir = makeTempDir('airlock-docker-', { outsideTmp: true })
    workspace = join(dir.path, 'agent')
    claimWorkspace(workspace)
    manager = new ExecutionResourceManager().registerProvider(new DockerProvider({ home, docker }))
  }, 600_000)
  afterAll(async () => {
    await manager.releaseAll()
    dir.remove()
  })

  const target = (session: string) => ({
    workspace,
    mode: 'snapshot' as const,
    isolation: { isolation: 'required' as const },
    providers: ['docker'],
    scope: 'session' as const,
    ownerId: session,
    policy: { timeoutSeconds: 30 }
  })
  const run = (request: unknown, extra: { timeoutSeconds?: number; session?: string } = {}) =>
    executeCode({
      ...target(extra.session ?? 'session-1'),
      manager,
      request,
      actionCallId: `call-${++callSeq}`,
      ...(extra.timeoutSeconds ? { policy: { timeoutSeconds: extra.timeoutSeconds } } : {})
    })
  /** What the agent's session does: hold the session's code-execution resource while it lives. */
  const holdSession = (session: string, timeoutSeconds = 30) =>
    manager.ensure(executionRequirement({ ...target(session), policy: { timeoutSeconds } }, 'python'))

  it('runs a python bundle as the sandbox identity; its outputs belong to that identity', async () => {
    const outcome = await run({
      language: 'python',
      sourceCode: "import os, getpass\nopen(os.environ['AIRLOCK_OUTPUT_DIR'] + '/report.txt', 'w').write('ok')\nprint('user', os.getuid(), os.getgid())",
      expectedOutputs: ['output/report.txt']
    })
    const identity = sandboxIdentity()
    expect(outcome).toMatchObject({ status: 'success', outputs: [{ path: 'output/report.txt', bytes: 2 }] })
    expect(outcome.result.stdout).toBe(`user ${identity.uid} ${identity.gid}\n`)
    expect(readFileSync(join(outcome.executionArea, 'output', 'report.txt'), 'utf8')).toBe('ok')
    expect(statSync(join(outcome.executionArea, 'output', 'report.txt')).uid).toBe(identity.uid)
    expect(outcome.provider).toMatchObject({ providerId: 'docker', isolation: { mechanism: 'container', processContained: true, networkMode: 'none' } })
  })

  it('ptrace, unshare, mount and io_uring fail with EPERM inside the container (seccomp profile)', async () => {
    const call = (expression: string) =>
      `import ctypes, errno\nlibc = ctypes.CDLL(None, use_errno=True)\nr = ${expression}\nprint(r, errno.errorcode.get(ctypes.get_errno(), 'OK'))`
    const results: string[] = []
    for (const expression of [
      'libc.ptrace(16, 1, 0, 0)',
      'libc.unshare(0x10000000)',
      "libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)",
      'libc.syscall(425, 8, 0)'
    ]) {
      results.push((await run({ language: 'python', sourceCode: call(expression) })).result.stdout.trim())
    }
    expect(results).toEqual(['-1 EPERM', '-1 EPERM', '-1 EPERM', '-1 EPERM'])
  })

  it('runs a nodejs bundle with files and args', async () => {
    const outcome = await run({
      language: 'nodejs',
      files: [
        {
          path: 'src/index.js',
          content: "const { greet } = require('./greet'); require('fs').writeFileSync('../output/out.json', JSON.stringify(greet(process.argv[2])))"
        },
        { path: 'src/greet.js', content: 'exports.greet = (name) => ({ hello: name })' }
      ],
      entrypoint: 'src/index.js',
      args: ['airlock'],
      expectedOutputs: ['output/out.json']
    })
    expect(outcome.status).toBe('success')
    expect(JSON.parse(readFileSync(join(outcome.executionArea, 'output', 'out.json'), 'utf8'))).toEqual({ hello: 'airlock' })
  })

  it('a missing declared output fails the execution with expected_output_missing', async () => {
    const outcome = await run({ language: 'python', sourceCode: "print('forgot')", expectedOutputs: ['output/missing.csv'] })
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'expected_output_missing', message: expect.stringMatching(/output\/missing.csv/) } })
  })

  it('a second run in the same session reuses the warm container (same container id)', async () => {
    const session = await holdSession('warm')
    const containerId = (session.resource as ContainerRunner).container.id
    const a = await run({ language: 'python', sourceCode: 'print(1)' }, { session: 'warm' })
    const b = await run({ language: 'python', sourceCode: 'print(2)' }, { session: 'warm' })
    expect([a.status, b.result.stdout]).toEqual(['success', '2\n'])
    expect(manager.list({ scope: 'session', ownerId: 'warm' }).map((h) => [h.meta.containerId, h.refCount])).toEqual([[containerId, 1]])
    await manager.releaseScope('session', 'warm')
    await expect(docker.getContainer(containerId).inspect()).rejects.toMatchObject({ statusCode: 404 })
  })

  it('timeout → timed_out, the exec is killed, the container stays usable', async () => {
    const session = await holdSession('timeouts', 2)
    const outcome = await run({ language: 'python', sourceCode: 'import time\ntime.sleep(600.25)' }, { timeoutSeconds: 2, session: 'timeouts' })
    expect(outcome).toMatchObject({ status: 'timed_out', result: { exitCode: 124, timedOut: true } })
    const handle = session
    const runner = handle.resource as ProgramRunner
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const processes = await runner.exec({ argv: ['sh', '-c', 'for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$f"; echo; done'] })
    expect(processes.stdout.split('\n').filter((line) => line.startsWith('python3 main.py'))).toEqual([])
    expect(await new DockerProvider({ home, docker }).healthCheck(handle)).toBe('ready')
  })

  it('cancellation ends the exec and reports cancelled', async () => {
    await holdSession('cancels')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 800)
    const outcome = await executeCode({
      ...target('cancels'),
      manager,
      request: { language: 'python', sourceCode: 'import time\ntime.sleep(60)' },
      actionCallId: `call-${++callSeq}`,
      signal: controller.signal
    })
    expect(outcome).toMatchObject({ status: 'cancelled', result: { cancelled: true, exitCode: 130 } })
    expect(outcome.result.durationMs).toBeLessThan(20_000)
  })

  it('release removes the container', async () => {
    const handle = await manager.ensure({
      kind: 'code_execution',
      providerId: 'docker',
      scope: 'session',
      ownerId: 'to-release',
      requiredCapabilities: { languages: ['python'] },
      policy: { workspaceRoots: [workspace] }
    })
    const id = handle.meta.containerId as string
    expect((await docker.getContainer(id).inspect()).State.Running).toBe(true)
    await manager.release(handle)
    await expect(docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 })
  })

  it('a workspace root the sandbox identity cannot write (made by root, not claimed) is refused at ensure with the fix', async () => {
    const unclaimed = join(dir.path, 'unclaimed')
    mkdirSync(unclaimed, { mode: 0o755 })
    const ensured = manager.ensure({
      kind: 'code_execution',
      providerId: 'docker',
      requiredCapabilities: { languages: ['python'] },
      policy: { workspaceRoots: [unclaimed] }
    })
    if (process.getuid?.() !== 0) return void (await manager.release(await ensured)) // the operator's own directory: writable
    await expect(ensured).rejects.toMatchObject({ code: 'docker.workspace_refused', message: expect.stringMatching(/belongs to uid 0.*claimWorkspace/) })
  })

  it('the startup sweep removes a labelled container a crashed run left behind', async () => {
    const leftover = await docker.createContainer({
      Image: 'airlock/python:latest',
      Cmd: ['sleep', 'infinity'],
      Labels: { [labels.managed]: 'true', [labels.home]: homeLabel('/crashed-home') }
    })
    await leftover.start()
    const other = await docker.createContainer({
      Image: 'airlock/python:latest',
      Cmd: ['sleep', 'infinity'],
      Labels: { [labels.managed]: 'true', [labels.home]: homeLabel('/another-home') }
    })
    // Through the provider contract, as the host's start-up recovery calls it.
    expect(await new DockerProvider({ home: '/crashed-home', docker }).recover()).toEqual([`container ${leftover.id.slice(0, 12)}`])
    await expect(leftover.inspect()).rejects.toMatchObject({ statusCode: 404 })
    expect((await other.inspect()).Id).toBe(other.id)
    await other.remove({ force: true })
  })

  it('strict profile with a missing image → docker_image_missing, and no pull is attempted', async () => {
    const since = Math.floor(Date.now() / 1000)
    const error = (await manager
      .ensure({
        kind: 'code_execution',
        providerId: 'docker',
        config: { image: 'airlock/not-provisioned:latest', profile: 'strict' },
        policy: { workspaceRoots: [workspace] }
      })
      .catch((e: unknown) => e)) as ExecutionResourceError
    expect(error.code).toBe('execution_resource.docker_image_missing')
    expect(error.message).toMatch(/never pulls/)
    const events = await docker.getEvents({ since, until: Math.floor(Date.now() / 1000) + 1, filters: { type: ['image'], event: ['pull'] } })
    const text = await new Promise<string>((resolve) => {
      let body = ''
      events.on('data', (chunk: Buffer) => (body += chunk))
      events.on('end', () => resolve(body))
    })
    expect(text).toBe('')
  })

  it('developer profile: a pull needs approval; an approved pull that cannot reach a registry fails clearly', async () => {
    const ask = (pullApproved: boolean) =>
      manager
        .ensure({
          kind: 'code_execution',
          providerId: 'docker',
          config: { image: 'airlock-test/unreachable:1', profile: 'developer', pullApproved },
          policy: { workspaceRoots: [workspace] }
        })
        .catch((e: ExecutionResourceError) => e.code)
    expect(await ask(false)).toBe('execution_resource.docker_image_pull_approval_required')
    expect(await ask(true)).toBe('execution_resource.docker_image_pull_failed')
  })

  it('weakening extra args set the affected isolation axes false; unknown args are refused', async () => {
    const provider = new DockerProvider({ home, docker })
    const probe = (extraArgs: string[]) =>
      provider.probe({
        requirement: { kind: 'code_execution', requirementId: 'r', scope: 'action_call', resourceKey: 'k', config: { language: 'python', extraArgs } },
        policy: {}
      })
    const axes = async (extraArgs: string[]) => (await probe(extraArgs)).capabilities?.isolation
    expect(await axes([])).toMatchObject({ processContained: true, hostFilesystemRestricted: true, privilegeEscalationBlocked: true, syscallsRestricted: true })
    expect(await axes(['--privileged'])).toMatchObject({
      processContained: false,
      hostFilesystemRestricted: false,
      privilegeEscalationBlocked: false,
      syscallsRestricted: false
    })
    expect(await axes(['--pid=host'])).toMatchObject({ processContained: false, hostFilesystemRestricted: true })
    expect(await axes(['--network=host'])).toMatchObject({ processContained: false, networkMode: 'full' })
    expect(await axes(['--cap-add', 'SYS_ADMIN'])).toMatchObject({ privilegeEscalationBlocked: false, processContained: true })
    expect(await axes(['-v', '/:/host'])).toMatchObject({ hostFilesystemRestricted: false })
    expect(await axes(['--mount', 'type=bind,source=/,target=/host'])).toMatchObject({ hostFilesystemRestricted: false, processContained: true })
    expect(await axes(['--device=/dev/kmsg'])).toMatchObject({ hostFilesystemRestricted: false })
    expect(await axes(['--security-opt', 'seccomp=unconfined'])).toMatchObject({ syscallsRestricted: false, privilegeEscalationBlocked: true })
    expect(await axes(['--userns=host'])).toMatchObject({ privilegeEscalationBlocked: false })
    expect(await probe(['--rm-everything'])).toMatchObject({ available: false, reason: expect.stringMatching(/not a supported extra argument/) })
  })

  it('read_only/read_write grants are refused by the probe with the reason (snapshot only); the probe says how limits are enforced', async () => {
    const probe = (mode: 'snapshot' | 'read_only' | 'read_write') =>
      new DockerProvider({ home, docker }).probe({
        requirement: {
          kind: 'code_execution',
          requirementId: 'r',
          scope: 'action_call',
          resourceKey: 'k',
          config: { language: 'python' },
          workspaceAccess: { mode }
        },
        policy: {}
      })
    expect(await probe('read_write')).toMatchObject({ available: false, reason: expect.stringMatching(/only snapshot workspace grants \(asked: read_write\)/) })
    expect(await probe('read_only')).toMatchObject({ available: false, reason: expect.stringMatching(/asked: read_only/) })
    expect(await probe('snapshot')).toMatchObject({
      available: true,
      capabilities: { workspaceGrants: ['snapshot'], limits: { cpuSeconds: expect.stringMatching(/^per run/) }, runsAs: { uid: sandboxIdentity().uid } }
    })
    const refused = await executeCode({
      ...target('grants'),
      mode: 'read_only',
      manager,
      request: { language: 'python', sourceCode: 'print(1)' },
      actionCallId: `call-${++callSeq}`
    }).catch((e: ExecutionResourceError) => e)
    expect(refused).toMatchObject({ code: 'execution_resource.provider_unavailable' })
  })

  it('without a language asked for, the probe reports the provisioned images and their toolchain versions', async () => {
    const probe = await new DockerProvider({ home, docker }).probe({
      requirement: { kind: 'code_execution', requirementId: 'r', scope: 'action_call', resourceKey: 'k' },
      policy: {}
    })
    expect(probe.capabilities?.languages).toEqual(expect.arrayContaining(['python', 'nodejs']))
    expect(probe.capabilities?.toolchains).toMatchObject({ python: { available: true, version: expect.stringMatching(/^3\./) }, nodejs: { available: true } })
  })

  it('an unreachable engine makes the probe unavailable with the reason and the fix', async () => {
    const provider = new DockerProvider({ home, docker: createDockerClient({ socketPath: '/nonexistent/docker.sock' }) })
    const probe = await provider.probe({ requirement: { kind: 'code_execution', requirementId: 'r', scope: 'action_call', resourceKey: 'k' }, policy: {} })
    expect(probe).toMatchObject({ available: false, reason: expect.stringMatching(/not reachable.*Start it/) })
  })
})
