// The shape of an escape-corpus case and the small builders the case files share: tool calls
// (the steps an agent takes), the exact outcome on an isolating provider, and the evidence of an
// escape read from the host (the stage adds its own host checks to every case).
import { accessSync, constants, existsSync, readFileSync } from 'node:fs'
import { release } from 'node:os'
import { expect } from 'vitest'
import type { AgentLimits } from '@shared/agents'
import { sandboxIdentity, type ActionResult } from '../../src/main/core'
import { detectCgroupSupport } from '../../src/main/providers/runner/cgroup-limits'
import { syscallNumbers } from '../../src/main/core/sandbox/syscall-denylist'
import type { CaseContext, CorpusProviderId } from './escape-corpus-stage'

/** One tool call of the attacking agent, exactly as its MCP call would arrive. */
export type Step = {
  tool: 'run_command' | 'run_code' | 'write_file' | 'read_file' | 'edit_file' | 'list_directory' | 'search_files'
  input: Record<string, unknown>
}

/**
 * A TOCTOU race: a sandboxed background command (`racer`, through run_command) swaps a directory
 * for a symlink in a loop while the agent's file tools (`victim`) are called again and again.
 * The racer creates `race-ready` in the workspace once it loops.
 */
export type Race = { racer: string; victim: (index: number) => Step }

/** What an attempt produced: every call's result, the last one's output. */
export type Outcome = { results: ActionResult[]; last: ActionResult; stdout: string; stderr: string; exitCode: number | undefined }

/** What a case does on trusted_local (see `EscapeCase.unisolated`). */
export type Unisolated = 'escapes' | 'holds' | 'not_run'

/** `escapes` where the host lets an unprivileged process do it, else `holds`. */
export const escapesWhen = (allowed: boolean): Unisolated => (allowed ? 'escapes' : 'holds')

const sysctl = (name: string): string | undefined => {
  try {
    return readFileSync(`/proc/sys/${name}`, 'utf8').trim()
  } catch {
    return undefined
  }
}
const [kernelMajor = 0, kernelMinor = 0] = release().split('.').map(Number)
const cgroups = detectCgroupSupport()

/**
 * What this host lets an unprivileged process do, read when the corpus loads: on trusted_local
 * nothing but these (and the uid a run holds) stands between the code and the host, so what the
 * unisolated cases must show depends on them. Each names the kernel setting it follows.
 */
export const unprivileged = {
  /** Runs hold a uid of their own (Airlock runs as root): Airlock's home and code are not theirs. */
  ownUid: sandboxIdentity().dedicated,
  userNamespaces:
    Number(sysctl('user/max_user_namespaces') ?? '0') > 0 &&
    (sysctl('kernel/unprivileged_userns_clone') ?? '1') === '1' &&
    (sysctl('kernel/apparmor_restrict_unprivileged_userns') ?? '0') === '0',
  ioUring: (sysctl('kernel/io_uring_disabled') ?? '0') === '0',
  /** perf_event_paranoid ≤ 2: a process may count its own user-space events (Debian kernels use 3). */
  perfSelf: Number(sysctl('kernel/perf_event_paranoid') ?? '2') <= 2,
  /** UFFD_USER_MODE_ONLY (Linux 5.11) or vm.unprivileged_userfaultfd. */
  userfaultfd: kernelMajor > 5 || (kernelMajor === 5 && kernelMinor >= 11) || sysctl('vm/unprivileged_userfaultfd') === '1',
  bpf: sysctl('kernel/unprivileged_bpf_disabled') === '0',
  kernelLog: sysctl('kernel/dmesg_restrict') === '0',
  /** The vsock transport is loaded (it makes /dev/vsock). */
  vsock: existsSync('/dev/vsock'),
  /** Yama's ptrace scope (0 without Yama): 1 allows descendants only, 2 administrators only. */
  ptraceScope: Number(sysctl('kernel/yama/ptrace_scope') ?? '0'),
  /** trusted_local holds each run in a per-run cgroup it empties at the end (else only its process group is ended). */
  runCgroup: cgroups.pids || cgroups.memory,
  /** Whether a run could open `path` for writing: never with a uid of its own, else as Airlock's uid can. */
  canWrite(path: string): boolean {
    if (this.ownUid) return false
    try {
      accessSync(path, constants.W_OK)
      return true
    } catch {
      return false
    }
  }
}

/** What a case tests, by area (the results table groups by it). */
export type Area =
  | 'filesystem'
  | 'file-tools'
  | 'race'
  | 'process'
  | 'syscalls'
  | 'privilege'
  | 'devices'
  | 'network'
  | 'limits'
  | 'launcher'
  | 'kernel-knobs'
  | 'mounted-paths'

/**
 * One attack: the calls, the exact outcome on bubblewrap and docker, and the host evidence of an
 * escape. `unisolated` says what it does on trusted_local, where nothing is isolated: `escapes`
 * (the corpus must see it: proof that its checks can fail), `holds` (something outside the
 * sandbox stops it: Airlock's file tools, the sandbox uid, the per-run cgroup, the kernel's own
 * settings; see `unprivileged`), or `not_run` (it would harm the host if it worked there).
 */
export type EscapeCase = {
  id: string
  area: Area
  attack: string
  /** Escaped on a provider before (TESTING.md): must stay in the corpus. */
  regression?: boolean
  unisolated: Unisolated
  /** Only on this isolating provider (an attack on something only it has). */
  only?: Exclude<CorpusProviderId, 'trusted_local'>
  /** Limits of the case's agent over the corpus defaults. */
  limits?: Partial<AgentLimits>
  /** Runs alone, not beside other cases (it loads the machine or measures time). */
  alone?: boolean
  /** Host-side preparation (what an earlier escape or another process could have left). */
  hostPrepare?: (ctx: CaseContext) => void
  /** Calls before the attempt (their results are not judged). */
  prepare?: (ctx: CaseContext) => Step[]
  attempt: (ctx: CaseContext) => Step[] | { race: Race }
  /** The exact outcome on an isolating provider. */
  expect: (outcome: Outcome, ctx: CaseContext) => void
  /** Evidence beyond the stage's own host checks (a file, a process, what the kernel allowed). */
  evidence?: (outcome: Outcome, ctx: CaseContext) => string[] | Promise<string[]>
}

/** A `run_command` step. */
export const sh = (command: string, timeoutSeconds?: number): Step => ({
  tool: 'run_command',
  input: { command, ...(timeoutSeconds ? { timeoutSeconds } : {}) }
})

/** A `run_code` step running Python source. */
export const py = (sourceCode: string, extra: Record<string, unknown> = {}): Step => ({ tool: 'run_code', input: { language: 'python', sourceCode, ...extra } })

/** A file-tool step. */
export const tool = (name: Step['tool'], input: Record<string, unknown>): Step => ({ tool: name, input })

/** A syscall number on this architecture. */
export function nr(name: keyof typeof syscallNumbers): number {
  const numbers = syscallNumbers[name]!
  const number = process.arch === 'arm64' ? numbers.arm64 : numbers.x64
  if (number === undefined) throw new Error(`no syscall ${name} on ${process.arch}`)
  return number
}

/** Python that sets up ctypes and prints `<return value> <errno name>` of one expression. */
export function libcCall(setup: string, call: string): string {
  return [
    'import ctypes, errno, os, socket, struct, time',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'def said(r):',
    "    print(r if r < 0 else 'ok', errno.errorcode.get(ctypes.get_errno(), 'OK') if r < 0 else 'OK')",
    setup,
    `said(${call})`
  ].join('\n')
}

/** The call ran to its end (status success) and printed exactly `text` (trimmed). */
export const printed = (text: string) => (outcome: Outcome) => {
  expect(outcome.last, JSON.stringify(outcome.last.error)).toMatchObject({ status: 'success' })
  expect(outcome.stdout.trim()).toBe(text)
}

/** As `printed`, with the text each isolating provider prints. */
export const printedOn = (texts: Partial<Record<CorpusProviderId, string>>) => (outcome: Outcome, ctx: CaseContext) => printed(texts[ctx.providerId]!)(outcome)

/** Every call was refused by the file tools with `code` (status `blocked` or `error` as the reason says). */
export const refusedAll = (code: string | RegExp) => (outcome: Outcome) => {
  for (const result of outcome.results) {
    expect(result.ok, JSON.stringify(result.data)).toBe(false)
    expect(result.error?.code).toMatch(code)
  }
}

/** Evidence: the kernel let the call through (`ok` printed where an isolating provider prints an errno). */
export const kernelAllowed = (what: string) => (outcome: Outcome) => (/^ok OK$/m.test(outcome.stdout) ? [`the kernel allowed ${what}`] : [])

/** Python printing the errno name of a network attempt, or `connected`/`sent`/`answered`. */
export function networkAttempt(body: string): string {
  return [
    'import errno, socket',
    'def attempt(f):',
    '    try:',
    '        print(f())',
    '    except socket.gaierror as e:',
    "        print('gaierror', e.args[0])",
    '    except OSError as e:',
    '        print(errno.errorcode.get(e.errno, e.errno) if e.errno else type(e).__name__)',
    body
  ].join('\n')
}
