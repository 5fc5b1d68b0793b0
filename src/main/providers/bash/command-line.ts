import { AirlockError } from '@shared/errors'

/** A command the host runner will not run, with the reason (an action maps this to `blocked`). */
export class CommandRefusedError extends AirlockError<'shell.command_refused'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('shell.command_refused', message, {}, options)
  }
}

/**
 * Splits a command line into argv the way a shell would for plain words and quotes ('...',
 * "...", backslash escapes), and refuses everything a shell would interpret: pipes, `;`, `&`,
 * redirections, `$`, backticks, subshells, globs stay literal. The host runner never uses a shell.
 */
export function splitCommandLine(command: string): string[] {
  const words: string[] = []
  let current = ''
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let index = 0; index < command.length; index++) {
    const char = command[index]!
    if (quote === "'") {
      if (char === "'") quote = undefined
      else current += char
      continue
    }
    if (quote === '"') {
      if (char === '"') quote = undefined
      else if (char === '\\' && /["\\$`]/.test(command[index + 1] ?? '')) current += command[++index]
      else if (char === '$' || char === '`') throw new CommandRefusedError(`${char} expansion is not allowed on the host runner`)
      else current += char
      continue
    }
    if (char === "'" || char === '"') {
      quote = char
      inWord = true
    } else if (char === '\\') {
      const next = command[++index]
      if (next === undefined || next === '\n') throw new CommandRefusedError('a trailing backslash is not allowed')
      current += next
      inWord = true
    } else if (char === ' ' || char === '\t') {
      if (inWord) words.push(current)
      current = ''
      inWord = false
    } else if (/[|&;<>()$`\n\r{}]/.test(char)) {
      throw new CommandRefusedError(`${JSON.stringify(char)} is shell syntax; the host runner runs one plain command (use a sandboxed shell for pipelines)`)
    } else {
      current += char
      inWord = true
    }
  }
  if (quote) throw new CommandRefusedError('unterminated quote')
  if (inWord) words.push(current)
  if (words.length === 0) throw new CommandRefusedError('empty command')
  return words
}
