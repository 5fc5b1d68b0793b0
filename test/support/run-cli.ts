import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { createInterface } from 'node:readline'

/** The `airlock` command of this checkout. */
export const airlockBin = resolve(__dirname, '../../bin/airlock.mjs')

/** Runs `airlock ...args` to completion (for commands that end by themselves). */
export function runAirlock(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [airlockBin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Starts `airlock serve ...` and resolves with the process and the first line it printed. */
export async function startServe(args: string[]): Promise<{ child: ChildProcess; firstLine: string; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [airlockBin, 'serve', '--no-open', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const firstLine = await new Promise<string>((resolveLine, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.once('line', resolveLine)
    child.once('exit', (code) => reject(new Error(`airlock serve exited ${code}: ${stderr}`)))
  })
  return {
    child,
    firstLine,
    stop: () =>
      new Promise((resolveExit) => {
        if (child.exitCode !== null) return resolveExit(child.exitCode)
        child.once('exit', (code) => resolveExit(code))
        child.kill('SIGTERM')
      })
  }
}

/**
 * Runs `airlock ...args` to completion without blocking this process: for tests where a host in
 * the test process must keep serving (delivering an approval) while the command runs.
 */
export function runAirlockAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [airlockBin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (chunk) => (stdout += chunk))
    child.stderr!.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolveRun({ code, stdout, stderr })
    })
  })
}
