import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { globalOptions, type Command, type CommandIo } from './command'
import { parseCommandLine } from './parse-args'
import { UsageError } from './cli-error'

/**
 * One subcommand as `--help` lists it; `load` imports its code only when it runs. Each command is
 * its own chunk of the build, so `airlock approvals list` reads the database without loading the
 * host, its providers, the browser driver or the shell parser's WASM (issue 29: every command used
 * to load the whole app, ~0.9 s before it did anything).
 */
export type CommandEntry = { name: string; summary: string; load: () => Promise<Command> }

/** Every subcommand, in the order `--help` lists them. */
export const commands: readonly CommandEntry[] = [
  {
    name: 'serve',
    summary: 'Run the web console and the agent gateway on 127.0.0.1 (prints the console URL, then the gateway URL)',
    load: async () => (await import('./commands/serve')).serveCommand
  },
  {
    name: 'agent',
    summary: 'Create (prints its token once), update, list, disable, enable and remove agents',
    load: async () => (await import('./commands/agent')).agentCommand
  },
  {
    name: 'role',
    summary: 'List, save or remove roles (defaults agents inherit and cannot exceed)',
    load: async () => (await import('./commands/role')).roleCommand
  },
  {
    name: 'approvals',
    summary: 'List the approval queue, show an item whole; approve or deny a waiting request',
    load: async () => (await import('./commands/approvals')).approvalsCommand
  },
  { name: 'rules', summary: 'List remembered approval rules, or revoke one', load: async () => (await import('./commands/rules')).rulesCommand },
  { name: 'net', summary: 'Egress proxy rules (allow/deny/ask per domain) and pinned names', load: async () => (await import('./commands/net')).netCommand },
  { name: 'history', summary: 'Show the execution history, newest first', load: async () => (await import('./commands/history')).historyCommand },
  {
    name: 'checkpoints',
    summary: "List an agent's workspace checkpoints, show a call's changes as a diff, undo them",
    load: async () => (await import('./commands/checkpoints')).checkpointsCommand
  },
  {
    name: 'policy',
    summary: 'Explain what the policy decides for a command line by an agent',
    load: async () => (await import('./commands/policy')).policyCommand
  },
  {
    name: 'skills',
    summary: "List an agent's skills and approve or reject a revision that waits",
    load: async () => (await import('./commands/skills')).skillsCommand
  },
  {
    name: 'audit',
    summary: 'Verify the history chain, the audit ledger and its anchored head (audit verify)',
    load: async () => (await import('./commands/audit')).auditCommand
  },
  {
    name: 'doctor',
    summary: 'Check which isolation guarantees hold on this machine, with real escape attempts',
    load: async () => (await import('./commands/doctor')).doctorCommand
  },
  {
    name: 'images',
    summary: 'List Airlock images, or provision one for a language (--offline builds it without a registry)',
    load: async () => (await import('./commands/images')).imagesCommand
  },
  {
    name: 'home',
    summary: 'Show the Airlock home, or move it with `home move DIR` (agents, tokens and history kept)',
    load: async () => (await import('./commands/home')).homeCommand
  },
  {
    name: 'mcp-stdio',
    summary: 'Serve MCP over stdio for one agent, relayed to the running agent gateway',
    load: async () => (await import('./commands/mcp-stdio')).mcpStdioCommand
  }
]

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
  const entry = commands.find((c) => c.name === name)
  try {
    if (!entry) throw new UsageError(`unknown command ${JSON.stringify(name)} (see airlock --help)`)
    const command = await entry.load()
    const args = parseCommandLine(rest, { ...globalOptions, ...command.options })
    if (args.options.help) {
      io.out(`Usage: ${command.usage}\n\n${entry.summary}.`)
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
  // A short command parses a line or two with the shell parser's WASM; V8 would also compile the
  // whole module with its optimizing tier in the background and wait for that at exit (~1 s on
  // this machine; measured in bench/cli.bench.ts). Its baseline tier (Liftoff) parses a line as
  // fast. `serve` parses every agent call for hours, so it keeps the optimizing tier.
  if (process.argv[2] !== 'serve') setFlagsFromString('--liftoff-only')
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
