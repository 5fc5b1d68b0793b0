import { existsSync } from 'node:fs'
import type { CommandResult, CommandRunInput, CommandRunner, ResourcePolicy } from '../../core'
import { runBounded } from '../process/bounded-process'
import { childEnv, eitherSignal, outputCapFor, systemPath, timeoutMsFor } from '../process/run-limits'
import { resolveCwd } from '../process/workspace-paths'
import { admitCommand } from './command-allowlist'
import { splitCommandLine } from './command-line'

/**
 * The `bash` provider's live resource: runs one allowlisted, read-only command at a time on the
 * host, without a shell, inside the workspace roots, bounded in time and output.
 */
export class HostCommandRunner implements CommandRunner {
  private readonly released = new AbortController()

  constructor(
    private readonly roots: string[],
    private readonly policy: ResourcePolicy,
    private readonly allowedPrefixes: readonly string[]
  ) {}

  /** True while the runner is open and its workspace roots still exist. */
  isUsable(): boolean {
    return !this.released.signal.aborted && this.roots.every((root) => existsSync(root))
  }

  /** Ends every command still running and refuses new ones. */
  close(): void {
    this.released.abort()
  }

  async run(input: CommandRunInput): Promise<CommandResult> {
    if (this.released.signal.aborted) throw new Error('this runner was released')
    const cwd = resolveCwd(this.roots, input.cwd)
    const admitted = admitCommand(splitCommandLine(input.command), { allowedPrefixes: this.allowedPrefixes, cwd, roots: this.roots })
    const env = childEnv({ PATH: systemPath, HOME: this.roots[0]!, LANG: 'C.UTF-8', TERM: 'dumb', ...admitted.env }, input.env)
    return runBounded({
      argv: admitted.argv,
      cwd,
      env,
      timeoutMs: timeoutMsFor(this.policy, input.timeoutSeconds),
      maxOutputBytes: outputCapFor(this.policy),
      signal: eitherSignal(input.signal, this.released.signal)
    })
  }
}
