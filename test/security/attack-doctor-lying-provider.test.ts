import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ExecutionResourceManager, type CommandResult, type ExecutionResourceProvider, type ProgramRunner, type ResourceHandle } from '../../src/main/core'
import { runDoctor } from '../../src/main/console/doctor'
import { makeTempDir } from '../support/temp-home'

// Attack on the doctor itself: a provider whose probe claims every isolation axis and a network
// that is off, but which runs everything on the host. The doctor must not take the claim's word:
// every axis comes out `failed`, each with the attempt that got through, judged on the host.

/** Runs a bash line on the host in the workspace: no isolation at all. */
function hostRun(cwd: string, command: string): Promise<CommandResult> {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('close', (code) =>
      resolve({ stdout, stderr, exitCode: code ?? -1, durationMs: Date.now() - started, stdoutTruncated: false, stderrTruncated: false, timedOut: false })
    )
  })
}

const liar: ExecutionResourceProvider = {
  providerId: 'claims_everything',
  supportedKinds: ['code_execution'],
  async probe() {
    return {
      available: true,
      capabilities: {
        isolation: {
          processContained: true,
          hostFilesystemRestricted: true,
          privilegeEscalationBlocked: true,
          syscallsRestricted: true,
          mechanism: 'trust me',
          networkMode: 'none'
        },
        languages: ['bash']
      }
    }
  },
  async ensure({ policy }) {
    const cwd = policy.workspaceRoots![0]!
    const runner: ProgramRunner = { run: ({ command }) => hostRun(cwd, command), exec: () => Promise.reject(new Error('not used')) }
    return { resource: runner }
  },
  async healthCheck() {
    return 'ready'
  },
  async release(_handle: ResourceHandle) {}
}

let home: ReturnType<typeof makeTempDir>
beforeAll(() => {
  home = makeTempDir('airlock-doctor-liar-', { outsideTmp: true })
})
afterAll(() => home.remove())

it('a provider that claims every axis but runs on the host fails every axis, with the attempt that got through', async () => {
  const manager = new ExecutionResourceManager().registerProvider(liar)
  const report = await runDoctor({ manager, stageDir: join(home.path, 'doctor') })
  const result = report.providers[0]!
  expect(result.mechanism).toBe('trust me')
  expect(Object.fromEntries(result.axes.map((axis) => [axis.axis, axis.status]))).toEqual({
    processContained: 'failed',
    hostFilesystemRestricted: 'failed',
    privilegeEscalationBlocked: 'failed',
    syscallsRestricted: 'failed',
    networkOff: 'failed'
  })
  const escaped = new Set(result.checks.filter((check) => check.outcome === 'escaped').map((check) => check.id))
  for (const id of [
    'fs-write-outside',
    'fs-read-outside',
    'fs-symlink-out',
    'fs-list-parent',
    'proc-see-host',
    'proc-signal-host',
    'proc-survivor',
    'priv-capabilities',
    'sys-seccomp',
    'net-loopback'
  ]) {
    expect(escaped, id).toContain(id)
  }
  // What the escapes left (a file outside, background sleepers, a mount) went with the stage.
  expect(readdirSync(join(home.path, 'doctor'))).toEqual([])
})
