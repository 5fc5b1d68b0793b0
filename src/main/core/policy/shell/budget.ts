/**
 * The analysis budget: every command line is decided quickly whatever it contains. Text that is
 * not worth parsing is refused before the parser sees it (too long, a NUL, lone surrogates); the
 * parse runs with a deadline; the walk over the tree counts nodes, words and commands. Running out
 * is never a crash or a partial "looks fine": it is `command.too_complex`, which asks or blocks.
 */

/** The limits. Typical lines use a few dozen nodes; a 300-line here-doc script a few thousand. */
export const analysisLimits = {
  /** Longest line analysed, in UTF-8 bytes (longer: `command.too_long`). */
  maxBytes: 64 * 1024,
  /** Tree nodes visited (walk and word evaluation together). */
  maxNodes: 6000,
  /** Words produced (argv, assignments, redirect targets). */
  maxWords: 4000,
  /** Simple commands found. */
  maxCommands: 1000,
  /** `fedBy` entries in total (a pipeline of n stages has n²/2). */
  maxFeeds: 20000,
  /** Nested scripts (`sh -c "sh -c '…'"`, `eval`, here-docs fed to a shell). */
  maxScriptDepth: 8,
  /** `$(…)`, backticks and `<(…)` nested in each other (ordinary lines nest two or three). */
  maxSubstitutionDepth: 32,
  /** Characters of all word values produced (`x=…; echo $x $x $x…` cannot fill the memory). */
  maxWordChars: 256 * 1024,
  /** Longest value built from other values that is remembered (`x=$x$x` ×n): longer is too complex. */
  maxVariableChars: 4 * 1024,
  /** Nesting inside one word (`"${a:-"${b:-…}"}"`); substitutions do not count, they are queued. */
  maxWordDepth: 64,
  /**
   * Progress callbacks during one parse (tree-sitter calls back every ~100 parse operations): a
   * deterministic stop for dense input such as `a;a;a;…`, before the deadline.
   */
  maxParseProgressCalls: 60,
  /**
   * Wall-clock backstops, in milliseconds, for what the counted limits above do not foresee. The
   * counted limits are what bound every known hostile shape (1 MB lines, 500-deep nesting, 64 KiB
   * of `a;`, 10k pipes, doubling variables: each decided in ≈20 ms or less here, see
   * bench/policy.bench.ts), and they do so deterministically: a decision never depends on how
   * busy the machine is. The backstops are generous so that a loaded machine (CI runs the suite on
   * two cores) does not turn an ordinary line into `command.too_complex`.
   */
  parseDeadlineMs: 150,
  analysisDeadlineMs: 250
} as const

/** A refusal before parsing. */
export type TextRefusal = {
  rule: 'command.too_long' | 'command.nul_byte' | 'command.invalid_text'
  reason: string
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Checks the raw line: a NUL first (blocked in every ask mode), then lone UTF-16 surrogates and
 * U+FFFD (text that is not what would run, or not what was sent), then the size in UTF-8 bytes.
 */
export function refuseText(line: string): TextRefusal | null {
  const nul = line.indexOf('\0')
  if (nul >= 0) return { rule: 'command.nul_byte', reason: `the command line contains a NUL byte (at character ${nul})` }
  if (loneSurrogate.test(line)) {
    return { rule: 'command.invalid_text', reason: 'the command line contains invalid text (a lone UTF-16 surrogate)' }
  }
  // U+FFFD is what a decoder puts where bytes were not valid UTF-8: what was meant is unknown.
  if (line.includes('\uFFFD')) {
    return { rule: 'command.invalid_text', reason: 'the command line contains U+FFFD, the mark of bytes that were not valid UTF-8' }
  }
  // Cheap bound first: UTF-8 takes at least one byte per UTF-16 unit and at most three.
  if (line.length * 3 > analysisLimits.maxBytes) {
    const bytes = Buffer.byteLength(line, 'utf8')
    if (bytes > analysisLimits.maxBytes) {
      return { rule: 'command.too_long', reason: `the command line is ${bytes} bytes (limit ${analysisLimits.maxBytes})` }
    }
  }
  return null
}

/** Counters for one analysis; `exhausted` names the limit that ran out first. */
export class AnalysisBudget {
  nodes = 0
  words = 0
  wordChars = 0
  feeds = 0
  exhausted: string | null = null
  readonly parseDeadline: number
  readonly deadline: number

  constructor(now: number = performance.now()) {
    this.parseDeadline = now + analysisLimits.parseDeadlineMs
    this.deadline = now + analysisLimits.analysisDeadlineMs
  }

  /** Counts one visited node; false once any limit has run out. */
  node(): boolean {
    if (this.exhausted) return false
    this.nodes++
    if (this.nodes > analysisLimits.maxNodes) return this.stop(`more than ${analysisLimits.maxNodes} syntax nodes`)
    if ((this.nodes & 63) === 0 && performance.now() > this.deadline) {
      return this.stop(`the analysis took longer than ${analysisLimits.analysisDeadlineMs} ms`)
    }
    return true
  }

  /** Counts produced words; false once any limit has run out. */
  word(count = 1): boolean {
    if (this.exhausted) return false
    this.words += count
    return this.words > analysisLimits.maxWords ? this.stop(`more than ${analysisLimits.maxWords} words`) : true
  }

  /** Counts characters of produced word values; false once any limit has run out. */
  chars(count: number): boolean {
    if (this.exhausted) return false
    const before = this.wordChars
    this.wordChars += count
    if (this.wordChars > analysisLimits.maxWordChars) return this.stop(`more than ${analysisLimits.maxWordChars} characters of words`)
    // The clock is read each time another 16 KiB of values has been built (words, not nodes, cost here).
    if (before >> 14 !== this.wordChars >> 14 && performance.now() > this.deadline) {
      return this.stop(`the analysis took longer than ${analysisLimits.analysisDeadlineMs} ms`)
    }
    return true
  }

  /** Counts `fedBy` entries; false once any limit has run out. */
  feed(count = 1): boolean {
    if (this.exhausted) return false
    this.feeds += count
    return this.feeds > analysisLimits.maxFeeds ? this.stop(`more than ${analysisLimits.maxFeeds} pipeline feeds`) : true
  }

  /** Records the first limit that ran out. */
  stop(reason: string): false {
    if (!this.exhausted) this.exhausted = reason
    return false
  }
}
