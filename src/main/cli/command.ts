import type { OptionKinds, ParsedArgs } from './parse-args'

/** What a command gets to do its work and report. */
export type CommandIo = {
  out: (line: string) => void
  err: (line: string) => void
  /** Folder of the built app (`out/`), to find the renderer. */
  buildDir: string
}

/** Options every command accepts (SPEC §8.1). */
export const globalOptions = { home: 'text', json: 'flag', help: 'flag' } as const satisfies OptionKinds

/** The options a command's `run` sees: its own, typed, plus the global ones. */
export type CommandArgs<O extends OptionKinds> = ParsedArgs<O & typeof globalOptions>

/** One `airlock` subcommand: its usage line, its options, and what it does (its summary is in the CLI's command list). */
export type Command<O extends OptionKinds = OptionKinds> = {
  name: string
  usage: string
  options: O
  /** Resolves to the exit code; a command that keeps running (serve) resolves when it stops. */
  run(args: CommandArgs<O>, io: CommandIo): Promise<number>
}

/** Declares a command so `run` gets option values typed from the command's own `options`. */
export function defineCommand<const O extends OptionKinds>(command: Command<O>): Command<O> {
  return command
}
