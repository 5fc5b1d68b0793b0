/**
 * Option reading for wrappers: which words in front of the wrapped command are the wrapper's own
 * options (and their values), so `sudo -u root rm` finds `rm` and not `root`.
 */
import type { EvalWord } from './words'

/** The options read from one wrapper's words. */
export type Options = {
  /** Index of the first operand (after `--` when present). */
  index: number
  flags: Set<string>
  values: Map<string, string>
  /** For options that took a separate word, that word's index. */
  at: Map<string, number>
}

/**
 * Reads the options in front of the operands. `withValue` lists the short letters that take a
 * value (attached `-uroot` or the next word); `long` the long names that take one (`--user=x`,
 * `--user x`). Every other `-x` is a flag; the first word not starting with `-` ends the options.
 */
export function options(argv: EvalWord[], withValue: string, long: string[]): Options {
  const o: Options = { index: argv.length, flags: new Set(), values: new Map(), at: new Map() }
  let i = 1
  for (; i < argv.length; i++) {
    const v = argv[i]?.value ?? ''
    if (v === '--') {
      i++
      break
    }
    if (!v.startsWith('-') || v === '-') break
    if (v.startsWith('--')) {
      const [key = '', value] = v.slice(2).split(/=(.*)/s, 2)
      if (value !== undefined) o.values.set(key, value)
      else if (long.includes(key) && i + 1 < argv.length) {
        o.at.set(key, i + 1)
        o.values.set(key, argv[++i]?.value ?? '')
      } else o.flags.add(key)
      continue
    }
    for (let k = 1; k < v.length; k++) {
      const letter = v[k] ?? ''
      if (!withValue.includes(letter)) {
        o.flags.add(letter)
        continue
      }
      if (k + 1 < v.length) o.values.set(letter, v.slice(k + 1))
      else if (i + 1 < argv.length) {
        o.at.set(letter, i + 1)
        o.values.set(letter, argv[++i]?.value ?? '')
      }
      break
    }
  }
  o.index = i
  return o
}
