import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  claimWorkspace,
  executeCode,
  executionRequirement,
  ExecutionResourceManager,
  type ActionResult,
  type ExecuteCodeInput,
  type ExecutionResourceError,
  type ProgramRunner
} from '../../src/main/core'
import { BubblewrapProvider, checkEngine, createDockerClient, DockerProvider, TrustedLocalProvider } from '../../src/main/providers'
import { checkBubblewrapHost } from '../../src/main/providers/bubblewrap/bubblewrap-probe'
import { skipReasonFor } from '../support/components'
import { ensureTestImages } from '../support/docker-images'
import { createHost, type Host } from '../../src/main/host'
import { makeTempDir } from '../support/temp-home'

const docker = createDockerClient()
const [bwrap, engine] = await Promise.all([checkBubblewrapHost(), checkEngine(docker)])
const skip =
  skipReasonFor('bubblewrap', { available: bwrap.ok, reason: bwrap.ok ? '' : bwrap.reason }) ??
  skipReasonFor('Docker engine', { available: engine.ok, reason: engine.ok ? '' : engine.reason })

const noBwrap = { providerId: 'bubblewrap', config: { bwrapPath: '/nonexistent/bwrap' } }

describe.skipIf(skip !== undefined)(`ordered code-execution providers: bubblewrap, then docker${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let seq = 0
  const home = '/tmp/airlock-order-test-home'
  const managerWith = (dockerClient = docker) =>
    new ExecutionResourceManager()
      .registerProvider(new BubblewrapProvider())
      .registerProvider(new DockerProvider({ home, docker: dockerClient }))
      .registerProvider(new TrustedLocalProvider())

  beforeAll(async () => {
    await ensureTestImages(docker)
    dir = makeTempDir('airlock-order-', { outsideTmp: true })
    claimWorkspace(join(dir.path, 'ws'))
  }, 600_000)
  afterAll(() => dir.remove())

  const run = (manager: ExecutionResourceManager, overrides: Partial<ExecuteCodeInput>) =>
    executeCode({
      manager,
      request: { language: 'python', sourceCode: "import os\nprint('ran')" },
      workspace: join(dir.path, 'ws'),
      actionCallId: `order-${++seq}`,
      mode: 'snapshot',
      isolation: { isolation: 'required' },
      providers: ['bubblewrap', 'docker'],
      scope: 'session',
      ownerId: `s-${seq}`,
      policy: { timeoutSeconds: 30 },
      ...overrides
    })

  it('isolation required uses bubblewrap when it can', async () => {
    const outcome = await run(managerWith(), {})
    expect(outcome).toMatchObject({ status: 'success', provider: { providerId: 'bubblewrap', preferenceFallback: false } })
    expect(outcome.result.stdout).toBe('ran\n')
  })

  it('isolation required uses docker when bubblewrap is unavailable, and records why', async () => {
    const outcome = await run(managerWith(), { providers: [noBwrap, 'docker'] })
    expect(outcome).toMatchObject({ status: 'success', provider: { providerId: 'docker', isolation: { mechanism: 'container' } } })
    const probes = outcome.provider.probes as { providerId: string; eligible: boolean; reason?: string }[]
    expect(probes[0]).toMatchObject({ providerId: 'bubblewrap', eligible: false, reason: expect.stringMatching(/bwrap not found/) })
  })

  it('neither available → provider_unavailable listing both probes', async () => {
    const manager = managerWith(createDockerClient({ socketPath: '/nonexistent/docker.sock' }))
    const error = (await run(manager, { providers: [noBwrap, 'docker'] }).catch((e: unknown) => e)) as ExecutionResourceError
    expect(error.code).toBe('execution_resource.provider_unavailable')
    const probes = error.data.probes as { providerId: string; reason: string }[]
    expect(probes.map((p) => p.providerId)).toEqual(['bubblewrap', 'docker'])
    expect(probes[1]!.reason).toMatch(/not reachable/)
  })

  it('isolation required never falls back to trusted_local, even when it is listed', async () => {
    const manager = managerWith(createDockerClient({ socketPath: '/nonexistent/docker.sock' }))
    const error = (await run(manager, { providers: [noBwrap, 'docker', { providerId: 'trusted_local', config: { allowUnsafeLocal: true } }] }).catch(
      (e: unknown) => e
    )) as ExecutionResourceError
    expect(error.code).toBe('execution_resource.provider_unavailable')
  })

  it('unsafeFallback with isolation required is an error', async () => {
    const error = (await run(managerWith(), { isolation: { isolation: 'required', unsafeFallback: true } }).catch((e: unknown) => e)) as ExecutionResourceError
    expect(error.code).toBe('execution_resource.invalid_requirement')
    expect(error.message).toMatch(/unsafeFallback is only valid with isolation preferred or none/)
  })

  it("a run never sees another run's execution area, even in the session's warm container (bubblewrap and docker)", async () => {
    for (const providers of [['bubblewrap'], ['docker']]) {
      const manager = managerWith()
      const session = { providers, ownerId: `shared-${providers[0]}` }
      // The session holds its code-execution resource, as an agent session does: both runs share it.
      const held = await manager.ensure(
        executionRequirement(
          {
            workspace: join(dir.path, 'ws'),
            mode: 'snapshot',
            isolation: { isolation: 'required' },
            scope: 'session',
            policy: { timeoutSeconds: 30 },
            ...session
          },
          'python'
        )
      )
      const write = "import os\nopen(os.environ['AIRLOCK_OUTPUT_DIR'] + '/p.txt', 'w').write('PRIVATE\\n')"
      const first = await run(manager, { ...session, request: { language: 'python', sourceCode: write, expectedOutputs: ['output/p.txt'] } })
      expect(first.status).toBe('success')
      const victim = `../../${first.executionArea.split('/').at(-1)!}/output/p.txt`
      const attack = `for mode in ('r', 'w'):\n    try:\n        f = open('${victim}', mode)\n        print(mode, f.read() if mode == 'r' else f.write('EVIL'))\n    except OSError as e:\n        print(mode, type(e).__name__)`
      const attacker = await run(manager, { ...session, request: { language: 'python', sourceCode: attack } })
      // bubblewrap: the other area is not in the sandbox at all; docker: the host took it back (root, 0700).
      expect(attacker.result.stdout).toMatch(
        providers[0] === 'bubblewrap' ? /^r FileNotFoundError\nw FileNotFoundError\n$/ : /^r PermissionError\nw PermissionError\n$/
      )
      expect(readFileSync(join(first.executionArea, 'output', 'p.txt'), 'utf8')).toBe('PRIVATE\n')
      await manager.release(held)
    }
  })

  it('a shell bound to the whole workspace can neither list .airlock nor hard-link into an execution area (bubblewrap hides it, docker finds it root-owned 0711)', async () => {
    for (const providerId of ['bubblewrap', 'docker']) {
      const manager = managerWith()
      const write = "import os\nopen(os.environ['AIRLOCK_OUTPUT_DIR'] + '/p.txt', 'w').write('PRIVATE\\n')"
      const first = await run(manager, { providers: [providerId], request: { language: 'python', sourceCode: write, expectedOutputs: ['output/p.txt'] } })
      const area = `.airlock/executions/${first.executionArea.split('/').at(-1)!}`
      const shell = await manager.ensure({
        kind: 'bash',
        providerId,
        config: providerId === 'docker' ? { language: 'python' } : undefined,
        scope: 'session',
        ownerId: `shell-${providerId}`,
        policy: { workspaceRoots: [join(dir.path, 'ws')], timeoutSeconds: 30 }
      })
      const result = await (shell.resource as ProgramRunner).run({ command: `ls -A .airlock | wc -l; ln ${area}/output/p.txt stolen; echo rc=$?` })
      expect(result.stdout).toBe('0\nrc=1\n')
      expect(readFileSync(join(first.executionArea, 'output', 'p.txt'), 'utf8')).toBe('PRIVATE\n')
      await manager.release(shell)
    }
  })

  it('preferred + unsafeFallback with neither available → trusted_local, with the fallback recorded', async () => {
    const manager = managerWith(createDockerClient({ socketPath: '/nonexistent/docker.sock' }))
    const outcome = await run(manager, { providers: [noBwrap, 'docker'], isolation: { isolation: 'preferred', unsafeFallback: true } })
    expect(outcome).toMatchObject({
      status: 'success',
      provider: { providerId: 'trusted_local', preferenceFallback: true, isolation: { mechanism: 'trusted_local' } }
    })
    expect(outcome.result.stdout).toBe('ran\n')
  })
})

describe.skipIf(skip !== undefined)(`compiled languages: build step then run step${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('compiles and runs a C++ bundle in the bubblewrap sandbox, writing a declared output', async () => {
    const dir = makeTempDir('airlock-cpp-', { outsideTmp: true })
    claimWorkspace(dir.path)
    try {
      const manager = new ExecutionResourceManager().registerProvider(new BubblewrapProvider())
      const outcome = await executeCode({
        manager,
        request: {
          language: 'cpp',
          sourceCode:
            '#include <cstdio>\n#include <cstdlib>\nint main(int argc, char** argv) { FILE* f = fopen("../output/sum.txt", "w"); fprintf(f, "%d", atoi(argv[1]) + atoi(argv[2])); fclose(f); puts("done"); }',
          args: ['40', '2'],
          expectedOutputs: ['output/sum.txt']
        },
        workspace: dir.path,
        actionCallId: 'cpp-1',
        mode: 'snapshot',
        isolation: { isolation: 'required' },
        providers: ['bubblewrap'],
        scope: 'action_call',
        ownerId: 'cpp',
        policy: { timeoutSeconds: 120 }
      })
      expect(outcome.steps.map((s) => [s.name, s.exitCode])).toEqual([
        ['build', 0],
        ['run', 0]
      ])
      expect(outcome).toMatchObject({ status: 'success', result: { stdout: 'done\n' }, outputs: [{ path: 'output/sum.txt', bytes: 2 }] })
    } finally {
      dir.remove()
    }
  }, 120_000)
})

describe.skipIf(skip !== undefined)(`the operator's order is the order${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let dir: ReturnType<typeof makeTempDir>
  let host: Host

  beforeAll(async () => {
    await ensureTestImages(docker)
    dir = makeTempDir('airlock-operator-order-', { outsideTmp: true })
    host = createHost({ home: join(dir.path, 'home'), logError: () => undefined })
    await host.recovered
  }, 600_000)
  afterAll(async () => {
    await host?.dispose()
    dir?.remove()
  })

  it('an agent that names no providers follows code_execution.providers live: reordering moves its next run_code; an agent with its own order keeps it', async () => {
    host.agents.service.create('follower', { profile: { capabilities: ['files', 'shell', 'python'], ask: 'never' } })
    host.agents.service.create('chooser', { profile: { capabilities: ['python'], ask: 'never', providers: ['bubblewrap'] } })
    const providerOf = (result: ActionResult) => (result.meta.provider as { providerId?: string } | undefined)?.providerId
    const runIn = async (agentId: string) => {
      const sessionId = host.agents.sessions.start(agentId, 'test').sessionId
      const result = await host.agents.sessions.execute({ sessionId, tool: 'run_code', input: { language: 'python', sourceCode: "print('ran')" } })
      await host.agents.sessions.end(sessionId)
      expect(result.status, JSON.stringify(result.error)).toBe('success')
      return providerOf(result)
    }
    expect(host.agents.service.effectiveProfile('follower').providers).toEqual(['bubblewrap', 'docker'])
    expect(await runIn('follower')).toBe('bubblewrap')

    host.settings.set('code_execution.providers', ['docker', 'bubblewrap'])
    expect(host.agents.service.effectiveProfile('follower').providers).toEqual(['docker', 'bubblewrap'])
    expect(await runIn('follower')).toBe('docker')
    // An agent that chose its own order keeps it.
    expect(await runIn('chooser')).toBe('bubblewrap')
    // The history row names the provider that ran it.
    const rows = host.agents.history.list({ agentId: 'follower', limit: 10 }).rows
    expect(JSON.stringify(rows[0])).toContain('docker')
  }, 300_000)
})
