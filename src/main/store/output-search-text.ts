import { withoutEscapes } from '@shared/escape-sequences'

/** How much of each end of each stream history search reads (characters). */
const endChars = 8 * 1024

/**
 * What history search reads of a call's output (`action_calls.output_text`, in the FTS index):
 * the first and the last 8 Ki characters of stdout and of stderr — where a command says what it
 * ran and how it failed — without escape sequences (so `\x1b[31mFAILED` is the word FAILED).
 * Bounded per row, whatever the output's size; the whole output stays in the record. Undefined
 * when the call printed nothing.
 */
export function outputSearchText(stdout: string | undefined, stderr: string | undefined): string | undefined {
  const ends = (text: string | undefined) => {
    if (!text) return ''
    const plain = withoutEscapes(text, ' ')
    return plain.length <= 2 * endChars ? plain : `${plain.slice(0, endChars)}\n…\n${plain.slice(-endChars)}`
  }
  const text = `${ends(stdout)}\n${ends(stderr)}`.trim()
  return text === '' ? undefined : text
}
