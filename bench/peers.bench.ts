import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { it } from 'vitest'
import { claimWorkspace, ExecutionResourceManager, type ProgramRunner } from '../src/main/core'
import { createHost, startHostGateway } from '../src/main/host'
import { BubblewrapProvider } from '../src/main/providers/bubblewrap/bubblewrap-provider'
import { checkBubblewrapHost } from '../src/main/providers/bubblewrap/bubblewrap-probe'
import { callTool, connectAgent } from '../test/support/mcp-gateway-client'
import { makeTempDir } from '../test/support/temp-home'
import { record, summarise, type BenchResult } from './support/measure'

/**
 * Airlock beside its peers (issue 29), run by `npm run bench:peers` (scripts/bench-peers.mjs
 * installs the peers and sets AIRLOCK_PEERS_DIR; without it this file records nothing). Two
 * workloads, `sh -c true` and `python3 -c 'print(1)'`, through every path, alternating in one run
 * (each sample visits every path, in a rotating order): a bare spawn (the baseline of every ratio),
 * bwrap alone, Airlock's bubblewrap provider and its MCP gateway, srt as a library and as a CLI,
 * `codex sandbox`, and codex-shell-tool-mcp's `shell` tool. What each path contains is in
 * bench/README.md beside the figures: speed is read with containment.
 */
const samples = 30
const peers = process.env.AIRLOCK_PEERS_DIR

it.skipIf(!peers)(
  'peers: sandboxed commands side by side',
  async () => {
    const bwrap = await checkBubblewrapHost()
    if (!bwrap.ok) return record('peers', [{ name: 'peers', unit: 'ms', median: 0, p95: 0, samples: 0, note: `not measured: ${bwrap.reason}` }])
    const dir = makeTempDir('airlock-bench-peers-', { outsideTmp: true })
    const workspace = join(dir.path, 'ws')
    claimWorkspace(workspace)
    const closers: (() => Promise<unknown> | unknown)[] = [() => dir.remove()]
    try {
      const paths = await openPaths(peers!, dir.path, workspace, closers)
      const workloads = { true: ['sh', '-c', 'true'], python: ['python3', '-c', 'print(1)'] } as const
      const results: BenchResult[] = []
      for (const [workload, argv] of Object.entries(workloads)) {
        const names = Object.keys(paths)
        const times = new Map<string, number[]>(names.map((name) => [name, []]))
        const failures = new Map<string, string>()
        for (let sample = -3; sample < samples; sample++) {
          for (let k = 0; k < names.length; k++) {
            const name = names[(k + Math.max(0, sample)) % names.length]!
            if (failures.has(name)) continue
            const started = performance.now()
            try {
              await paths[name]!(argv as unknown as string[])
            } catch (error) {
              failures.set(name, (error as Error).message.slice(0, 200))
              continue
            }
            if (sample >= 0) times.get(name)!.push(performance.now() - started)
          }
        }
        const bare = summarise(times.get('bare')!)
        for (const name of names) {
          const failed = failures.get(name)
          if (failed) {
            results.push({ name: `peers.${workload}.${name}`, unit: 'ms', median: 0, p95: 0, samples: 0, note: `not measured: ${failed}` })
            continue
          }
          const own = summarise(times.get(name)!)
          results.push({
            name: `peers.${workload}.${name}`,
            unit: 'ms',
            median: round(own.median),
            p95: round(own.p95),
            samples,
            baseline: { median: round(bare.median), p95: round(bare.p95) },
            ratio: round(own.median / bare.median)
          })
        }
      }
      record('peers', results)
    } finally {
      for (const close of closers.reverse()) await close()
    }
  },
  900_000
)

type Path = (argv: string[]) => Promise<void>

async function openPaths(peers: string, home: string, workspace: string, closers: (() => Promise<unknown> | unknown)[]): Promise<Record<string, Path>> {
  const line = (argv: string[]) => argv.map((word) => (/^[\w./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ')
  const bin = (name: string) => join(peers, 'node_modules', '.bin', name)

  const manager = new ExecutionResourceManager().registerProvider(new BubblewrapProvider())
  const handle = await manager.ensure({ kind: 'code_execution', providerId: 'bubblewrap', policy: { workspaceRoots: [workspace] } })
  closers.push(() => manager.releaseAll())
  const runner = handle.resource as ProgramRunner

  const host = createHost({ home: join(home, 'airlock'), logError: () => undefined })
  await host.recovered
  host.settings.set('gateway.rate_per_minute', 100_000)
  const gateway = await startHostGateway(host, { port: 0, logError: () => undefined })
  closers.push(async () => {
    await gateway.close()
    await host.dispose()
  })
  const { token } = host.agents.service.create('peer', { profile: { capabilities: ['shell'], ask: 'never' } })
  const agent = await connectAgent(gateway.url, token)
  closers.push(() => agent.close())

  // srt: write inside the working folder only, no network.
  const srtConfig = join(home, 'srt.json')
  writeFileSync(
    srtConfig,
    JSON.stringify({ network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowRead: [], allowWrite: ['.'], denyWrite: [] } })
  )
  const srtModule = (await import(join(peers, 'node_modules', '@anthropic-ai', 'sandbox-runtime', 'dist', 'index.js'))) as {
    SandboxManager: { initialize(config: unknown): Promise<void>; wrapWithSandbox(command: string): Promise<string>; reset(): Promise<void> }
  }
  const srt = srtModule.SandboxManager
  const srtReady = await srt
    .initialize({ network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowRead: [], allowWrite: [workspace], denyWrite: [] } })
    .then(
      () => undefined,
      (error: Error) => error.message
    )
  closers.push(() => srt.reset())

  // codex-shell-tool-mcp, told its sandbox as the Codex harness would (workspace-write on the workspace, no network).
  const sandboxExe = join(home, 'codex-linux-sandbox')
  const codexForTool = join(peers, 'node_modules', 'codex-for-shell-tool', 'vendor', 'x86_64-unknown-linux-musl', 'codex', 'codex')
  if (existsSync(codexForTool)) symlinkSync(codexForTool, sandboxExe)
  mkdirSync(join(home, 'codex-home'), { recursive: true })
  const shellTool = new Client({ name: 'airlock-bench', version: '1' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(peers, 'node_modules', '@openai', 'codex-shell-tool-mcp', 'bin', 'mcp-server.js')],
    cwd: workspace,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: join(home, 'codex-home') },
    stderr: 'ignore'
  })
  await shellTool.connect(transport)
  closers.push(() => shellTool.close())
  await shellTool.request(
    {
      method: 'codex/sandbox-state/update',
      params: {
        sandboxPolicy: { type: 'workspace-write', writable_roots: [workspace], network_access: false, exclude_tmpdir_env_var: false, exclude_slash_tmp: false },
        codexLinuxSandboxExe: sandboxExe,
        sandboxCwd: workspace,
        useLinuxSandboxBwrap: false
      }
    },
    EmptyResultSchema
  )

  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: join(home, 'codex-home') }
  return {
    bare: (argv) => exit(argv, workspace, env),
    bwrap: (argv) => exit(['bwrap', '--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', ...argv], workspace, env),
    'airlock.bubblewrap_provider': async (argv) => {
      const result = await runner.exec({ argv })
      if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.stderr}`)
    },
    'airlock.gateway_run_command': async (argv) => {
      const result = await callTool(agent.client, 'run_command', { command: line(argv) })
      if (result.structuredContent.status !== 'success')
        throw new Error(`run_command ended ${result.structuredContent.status}: ${JSON.stringify(result.structuredContent.error)}`)
    },
    'srt.library': async (argv) => {
      if (srtReady) throw new Error(srtReady)
      await exit(['sh', '-c', await srt.wrapWithSandbox(line(argv))], workspace, env)
    },
    'srt.cli': (argv) => exit([bin('srt'), '-s', srtConfig, '-c', line(argv)], workspace, env),
    // The current codex (node_modules/.bin/codex may name the shell tool's older build).
    'codex.sandbox': (argv) =>
      exit([process.execPath, join(peers, 'node_modules', '@openai', 'codex', 'bin', 'codex.js'), 'sandbox', '--', ...argv], workspace, env),
    'codex.shell_tool_mcp': async (argv) => {
      const result = (await shellTool.callTool({ name: 'shell', arguments: { command: line(argv), workdir: workspace, login: false } })) as {
        isError?: boolean
        content: { text?: string }[]
      }
      const text = result.content[0]?.text ?? ''
      if (result.isError || !text.includes('"exit_code":0')) throw new Error(text.slice(0, 200))
    }
  }
}

function exit([program, ...args]: string[], cwd: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program!, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${program} exited ${code}: ${stderr.slice(0, 200)}`))))
  })
}

function round(value: number): number {
  return Number(value.toFixed(2))
}
