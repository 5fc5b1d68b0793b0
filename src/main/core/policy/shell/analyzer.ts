/**
 * The command analyzer: `loadCommandAnalyzer()` loads the bash grammar once (cached for the
 * process), and `analyze(line)` turns a command line into the `CommandAnalysis` the command rules
 * decide on. It never throws and never hangs: refused text, a parse past its deadline, a walk past
 * its budget or an unexpected failure all come back as a rule id (`command.*`) that asks or blocks.
 *
 * Why tree-sitter-bash (through web-tree-sitter) and not sh-syntax (mvdan/sh in WASM): both are
 * real, maintained bash parsers, but sh-syntax hands its AST across the WASM boundary as JSON,
 * ≈4.6 ms per typical line here, while tree-sitter-bash parses one in ≈50 µs and is what Codex
 * uses for its command safety checks. Tree-sitter is also error-tolerant: on a syntax error it
 * still returns a tree, so a broken line is analysed as far as it goes and flagged
 * (`command.parse_error`) instead of being opaque. Its cost is node access (each crosses into
 * WASM, ≈1 µs), which is why the walk reads each node once and the budget counts nodes.
 *
 * Every parse (the line, and each script found in it) first removes bash's line continuations
 * (`continuation.ts`): bash joins `r\⏎m` into `rm` before it splits words; tree-sitter does not.
 */
import { createRequire } from 'node:module'
import { Language, Parser, type Tree } from 'web-tree-sitter'
import type { CommandAnalysis } from '../command-analysis'
import { AnalysisBudget, analysisLimits, refuseText } from './budget'
import { joinContinuations } from './continuation'
import { LineWalker } from './walk'

/** Analyses command lines; synchronous once loaded. */
export type CommandAnalyzer = {
  analyze(line: string): CommandAnalysis
}

let loading: Promise<CommandAnalyzer> | null = null

/**
 * Loads the parser and the bash grammar (once per process; later calls share the promise). The
 * WASM files are found next to their packages, never from the caller's input or the environment.
 */
export function loadCommandAnalyzer(): Promise<CommandAnalyzer> {
  loading ??= load().catch((error: unknown) => {
    loading = null
    throw error
  })
  return loading
}

/**
 * A `require` that resolves from this module's own file: `__filename` is the bundle's file in the
 * CommonJS main build (Electron and the CLI), and vitest and Playwright's loader define it too.
 * (`import.meta` is avoided: one use makes Playwright's loader treat the file as an ES module.)
 */
function packageRequire(): NodeJS.Require {
  return createRequire(__filename)
}

const warmUpLines = [
  'cd src && npm test -- --run | tee out.log; git status --short',
  'for f in *.py; do python3 -m pytest -q "$f" || echo "$(date) failed" >> log; done',
  "cat <<'EOF' > a.sh\necho hi\nEOF\nsh -c 'ls -la ~'"
]

async function load(): Promise<CommandAnalyzer> {
  const require = packageRequire()
  const runtimeWasm = require.resolve('web-tree-sitter/tree-sitter.wasm')
  const grammarWasm = require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')
  await Parser.init({ locateFile: () => runtimeWasm })
  const language = await Language.load(grammarWasm)
  const parser = new Parser()
  parser.setLanguage(language)
  // The first parses after loading are several times slower (the WASM code is still being
  // compiled): spend that once here, not on an agent's first command.
  for (const line of warmUpLines) analyzeLine(parser, line)
  return { analyze: (line) => analyzeLine(parser, line) }
}

function analyzeLine(parser: Parser, line: string): CommandAnalysis {
  const refusal = refuseText(line)
  if (refusal) return { ok: false, ...refusal }
  const budget = new AnalysisBudget()
  const trees: Tree[] = []
  const parseOnce = (text: string): Tree | null => {
    let calls = 0
    const stop = (): boolean => ++calls > analysisLimits.maxParseProgressCalls || performance.now() > budget.parseDeadline
    const tree = parser.parse(text, null, { progressCallback: stop })
    if (!tree) {
      parser.reset()
      return null
    }
    trees.push(tree)
    return tree
  }
  // Every parse (the line and each nested script) first removes bash's line continuations.
  const parse = (text: string): Tree | null => {
    let tree = parseOnce(text)
    for (let pass = 0; tree && pass < 3; pass++) {
      const joined = joinContinuations(text, tree)
      if (joined === null) break
      text = joined
      tree = parseOnce(text)
    }
    return tree
  }
  try {
    const tree = parse(line)
    if (!tree) {
      return { ok: false, rule: 'command.too_complex', reason: 'the command line did not parse within the analysis budget' }
    }
    const walker = new LineWalker(parse, budget)
    if (tree.rootNode.hasError)
      walker.concern('command.parse_error', 'the command line has a syntax error (unbalanced quotes, a missing keyword or an unfinished here-document)')
    walker.run(tree.rootNode)
    return { ok: true, commands: walker.commands, concerns: walker.concerns }
  } catch (error) {
    // A failure of the analysis itself fails closed: the line asks (or is blocked), it never runs unseen.
    return { ok: false, rule: 'command.too_complex', reason: `the analysis failed: ${error instanceof Error ? error.message : String(error)}` }
  } finally {
    for (const tree of trees) tree.delete()
  }
}
