import type { SandboxIdentity } from '../../core'
import type { SandboxedStdioProcess } from '../bubblewrap/stdio-sandbox'
import { spawnGroup } from '../runner/bounded-process'
import type { RunLedger } from '../runner/run-ledger'

/** How long a server has to leave after its stdin closes before its group is killed. */
const exitGraceMs = 1000
/** How much of its stderr is kept for a failure's message. */
const stderrTailBytes = 4096

/**
 * Starts an `unsafe` upstream MCP server on the host: the operator chose no sandbox, but it still
 * never holds a host-privileged uid. When Airlock is root it runs as the dedicated sandbox uid
 * (supplementary groups dropped), otherwise as the operator; in its own process group, so stopping
 * it ends everything it started; with only the environment it is given (no `PATH`, `LD_*` or
 * `NODE_OPTIONS` of Airlock's own). Its group is in the run ledger while it lives, so a start after
 * a crash ends it.
 */
export function startHostServer(
  argv: string[],
  options: { cwd: string; env: Record<string, string>; identity: SandboxIdentity; recording?: { ledger: RunLedger; providerId: string } }
): SandboxedStdioProcess {
  const child = spawnGroup(argv, { cwd: options.cwd, env: options.env, stdin: 'pipe', ...(options.identity.dedicated ? { identity: options.identity } : {}) })
  const untrack = child.pid !== undefined ? options.recording?.ledger.record(options.recording.providerId, child.pid) : undefined
  let tail = Buffer.alloc(0)
  child.stderr!.on('data', (chunk: Buffer) => {
    tail = Buffer.concat([tail, chunk])
    if (tail.length > stderrTailBytes) tail = tail.subarray(tail.length - stderrTailBytes)
  })
  const gone = new Promise<void>((resolve) => {
    if (child.pid === undefined) resolve()
    else child.once('exit', () => resolve())
  })
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
    } catch {
      // The group is already gone.
    }
  }
  let stopping: Promise<void> | undefined
  const stop = async () => {
    child.stdin?.end()
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, exitGraceMs).unref())])
    // Whatever it left in its group goes with it, whether or not it left on EOF.
    killGroup()
    await gone
    untrack?.()
  }
  return { child, pid: child.pid, stderrTail: () => tail.toString('utf8'), stop: () => (stopping ??= stop()) }
}
