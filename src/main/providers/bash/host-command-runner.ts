import { existsSync } from 'node:fs'
import { sandboxIdentity, type CommandResult, type CommandRunInput, type CommandRunner, type ResourcePolicy } from '../../core'
import { runBounded } from '../runner/bounded-process'
import { eitherSignal, outputCapFor, timeoutMsFor } from '../runner/run-limits'
import { resolveCwd } from '../../core/sandbox/workspace-paths'
import { admitCallerEnv } from './caller-env'
import { admitCommand } from './command-allowlist'
import { CommandRefusedError, splitCommandLine } from './command-line'
import { hostProgramPath } from './host-programs'
import type { RunRecording } from '../runner/local-program-runner'
import type { ReadOnlySandbox } from '../bubblewrap/read-only-sandbox'

/**
 * The environment every host command starts from. HOME is /dev/null, where nothing can be put:
 * a home inside the workspace would let it hand gpg, git or rg their own configuration.
 */
const baseEnv = { PATH: hostProgramPath, HOME: '/dev/null', LANG: 'C.UTF-8', TERM: 'dumb' }

/**
 * The `bash` provider's live resource: runs one allowlisted, read-only command at a time, without
 * a shell, inside the workspace roots, bounded in time and output, as the sandbox identity. Its
 * checks run before the program starts, so a process writing the workspace at the same moment
 * could swap a checked path, and a program may open paths no argument named (git follows its
 * index): where bubblewrap works, each command therefore also runs in a read-only sandbox that
 * sees only the workspace; elsewhere the probe says the checks are all there is.
 */
export class HostCommandRunner implements CommandRunner {
  private readonly released = new AbortController()
  private readonly identity = sandboxIdentity()

  constructor(
    private readonly roots: string[],
    private readonly policy: ResourcePolicy,
    private readonly allowedPrefixes: readonly string[],
    private readonly recording?: RunRecording,
    private readonly sandbox?: ReadOnlySandbox
  ) {}

  /** True while the runner is open and its workspace roots still exist. */
  isUsable(): boolean {
    return !this.released.signal.aborted && this.roots.every((root) => existsSync(root))
  }

  /** Ends every command still running and refuses new ones. */
  close(): void {
    this.released.abort()
  }

  /** Admits and runs one command; a refusal throws `CommandRefusedError` before anything starts. */
  async run(input: CommandRunInput): Promise<CommandResult> {
    if (this.released.signal.aborted) throw new CommandRefusedError('this runner was released')
    const callerEnv = admitCallerEnv(input.env)
    const cwd = resolveCwd(this.roots, input.cwd)
    const admitted = await admitCommand(splitCommandLine(input.command), { allowedPrefixes: this.allowedPrefixes, cwd, roots: this.roots })
    // The runner's own settings come last: no caller variable can replace them.
    const env = { ...baseEnv, ...callerEnv, ...admitted.env }
    try {
      // Where bubblewrap works, the command also runs in a read-only sandbox that sees only the workspace.
      const launch = this.sandbox?.launch(admitted.argv, { roots: this.roots, extraPaths: admitted.hostPaths ?? [], cwd, env })
      const result = await runBounded({
        argv: launch ? undefined : admitted.argv,
        prepared: launch?.prepared,
        cwd,
        env,
        timeoutMs: timeoutMsFor(this.policy, input.timeoutSeconds),
        maxOutputBytes: outputCapFor(this.policy, input.maxOutputBytes),
        signal: eitherSignal(input.signal, this.released.signal),
        // Never as root: even outside a sandbox the kernel keeps the program to what the sandbox identity may read.
        identity: this.identity.dedicated ? this.identity : undefined,
        onOutput: input.onOutput,
        onStart: this.recording ? (pid) => this.recording!.ledger.record(this.recording!.providerId, pid) : undefined
      })
      const limitHit = await launch?.finish?.(result.exitCode)
      return limitHit ? { ...result, limitHit } : result
    } finally {
      admitted.release?.()
    }
  }
}
