import { join } from 'node:path'
import type { Command, CommandIo } from './command'
import { globalOptions } from './command'
import { agentCommand } from './commands/agent'
import { approvalsCommand } from './commands/approvals'
import { auditCommand } from './commands/audit'
import { checkpointsCommand } from './commands/checkpoints'
import { doctorCommand } from './commands/doctor'
import { historyCommand } from './commands/history'
import { homeCommand } from './commands/home'
import { imagesCommand } from './commands/images'
import { mcpStdioCommand } from './commands/mcp-stdio'
import { policyCommand } from './commands/policy'
import { roleCommand } from './commands/role'
import { rulesCommand } from './commands/rules'
import { netCommand } from './commands/net'
import { serveCommand } from './commands/serve'
import { skillsCommand } from './commands/skills'
import { parseCommandLine } from './parse-args'
import { UsageError } from './cli-error'

/** Every subcommand, in the order `--help` lists them. */
export const commands: readonly Command[] = [serveCommand, agentCommand, roleCommand, approvalsCommand, rulesCommand, netCommand, historyCommand, checkpointsCommand, policyCommand, skillsCommand, auditCommand, doctorCommand, imagesCommand, homeCommand, mcpStdioCommand]

/** The `--help` text. */
export function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return [
    'Usage: airlock <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Every command takes --home DIR (else AIRLOCK_HOME, else ~/.airlock; as root /var/lib/airlock).',
    'Run `airlock <command> --help` for its options.'
  ].join('\n')
}

/**
 * Runs the CLI and resolves to its exit code: 0 success, 1 the thing asked failed, 2 bad usage.
 * Errors are one line on stderr.
 */
export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    ;(name === undefined ? io.err : io.out)(helpText())
    return name === undefined ? 2 : 0
  }
  const command = commands.find((c) => c.name === name)
  try {
    if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)} (see airlock --help)`)
    const args = parseCommandLine(rest, { ...globalOptions, ...command.options })
    if (args.options.help) {
      io.out(`Usage: ${command.usage}\n\n${command.summary}.`)
      return 0
    }
    return await command.run(args, io)
  } catch (error) {
    io.err(`airlock: ${error instanceof Error ? error.message : String(error)}`)
    return error instanceof UsageError ? 2 : 1
  }
}

/** Runs the CLI for this process (argv, stdio, exit code). */
export function main(): void {
  // A reader that went away (\`airlock agent list | head -1\`) ends the output, not the command with a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error
    })
  }
  void runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    buildDir: join(__dirname, '..')
  }).then((code) => {
    process.exitCode = code
    // A finished command exits when nothing is left to do; a handle a provider leaked (a socket,
    // a timer) must not keep it alive, so exit anyway shortly after (unref: never delays).
    setTimeout(() => process.exit(code), 2000).unref()
  })
}

// Entry point when run directly as out/main/cli.js (`npm run serve`).
if (require.main === module) main()
