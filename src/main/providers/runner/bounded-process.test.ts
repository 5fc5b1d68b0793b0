import { isAlive as alive } from '../../../../test/support/processes'
import { describe, expect, it } from 'vitest'
import { runBounded, type BoundedRun } from './bounded-process'
import { OutputCap } from './output-cap'

const base = (argv: string[], extra: Partial<BoundedRun> = {}): BoundedRun => ({
  argv,
  cwd: '/tmp',
  env: { PATH: '/usr/bin:/bin' },
  timeoutMs: 10_000,
  maxOutputBytes: 1024 * 1024,
  ...extra
})

describe('bounded process carrier', () => {
  it('runs argv without a shell and reports stdout, stderr and the exit code', async () => {
    const result = await runBounded(base(['sh', '-c', 'echo out; echo err >&2; exit 3']))
    expect(result).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exitCode: 3, timedOut: false, stdoutTruncated: false })
    const literal = await runBounded(base(['echo', '$(id)', ';', 'rm', '-rf', '/']))
    expect(literal.stdout).toBe('$(id) ; rm -rf /\n')
  })

  it('caps each stream at maxOutputBytes, flags the truncation, and keeps memory bounded', async () => {
    const result = await runBounded(base(['python3', '-c', "import sys; print('x'*10**6); print('y'*10**6, file=sys.stderr)"], { maxOutputBytes: 128 }))
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(128)
    expect(result.stdout).toBe('x'.repeat(128))
    expect(result).toMatchObject({ stdoutTruncated: true, stderrTruncated: true, exitCode: 0 })
  })

  it('never cuts a UTF-8 character in half at the cap', () => {
    const cap = new OutputCap(6)
    cap.push(Buffer.from('ab€€'))
    expect(cap.text()).toBe('ab€')
    expect(cap.truncated).toBe(true)
  })

  it('timeout → SIGTERM to the group, SIGKILL after 1 s, exit code 124', async () => {
    const result = await runBounded(base(['sh', '-c', "trap '' TERM; sleep 30"], { timeoutMs: 300 }))
    expect(result).toMatchObject({ exitCode: 124, timedOut: true })
    expect(result.durationMs).toBeGreaterThanOrEqual(300)
  })

  it('cancellation by AbortSignal kills the process group: the pid no longer exists', async () => {
    const controller = new AbortController()
    const pending = runBounded(base(['sh', '-c', 'echo $$; sleep 30 & echo $!; wait'], { signal: controller.signal }))
    await new Promise((resolve) => setTimeout(resolve, 300))
    controller.abort()
    const result = await pending
    const [shellPid, sleepPid] = result.stdout.trim().split('\n').map(Number)
    expect(result).toMatchObject({ cancelled: true, exitCode: 130 })
    expect(alive(shellPid!)).toBe(false)
    expect(alive(sleepPid!)).toBe(false)
  })

  it('a background process started by the command is gone after the call', async () => {
    const result = await runBounded(base(['sh', '-c', 'sleep 60 >/dev/null 2>&1 & echo $!']))
    const pid = Number(result.stdout.trim())
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(alive(pid)).toBe(false)
  })

  it('a background process holding stdout does not keep the call waiting', async () => {
    const result = await runBounded(base(['sh', '-c', 'sleep 60 & echo started']))
    expect(result.stdout).toBe('started\n')
    expect(result.durationMs).toBeLessThan(5000)
  })

  it('reports a program that cannot start with exit code 127 and the reason', async () => {
    const result = await runBounded(base(['/nonexistent/program']))
    expect(result.exitCode).toBe(127)
    expect(result.stderr).toMatch(/could not start \/nonexistent\/program/)
  })

  it('feeds stdin when given', async () => {
    expect((await runBounded(base(['cat'], { stdin: 'hello' }))).stdout).toBe('hello')
  })
})
