import type { OptionKind, ParsedArgs } from './parse-args'

/** What a command gets to do its work and report. */
export type CommandIo = {
  out: (line: string) => void
  err: (line: string) => void
  /** Folder of the built app (`out/`), to find the renderer. */
  buildDir: string
}

/** One `airlock` subcommand: its words for `--help`, its options, and what it does. */
export type Command = {
  name: string
  summary: string
  usage: string
  options: Record<string, OptionKind>
  /** Resolves to the exit code; a command that keeps running (serve) resolves when it stops. */
  run(args: ParsedArgs, io: CommandIo): Promise<number>
}

/** Options every command accepts (SPEC §8.1). */
export const globalOptions: Record<string, OptionKind> = { home: 'text', json: 'flag', help: 'flag' }
