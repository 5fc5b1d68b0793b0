/**
 * Command analysis: a real bash parse (tree-sitter-bash) of a command line, turned into every
 * simple command that would run, with wrappers looked through and feeds between commands. See
 * `analyzer.ts` for the guarantees and `../command-analysis.ts` for the types.
 */
export { loadCommandAnalyzer, type CommandAnalyzer } from './analyzer'
export { analysisLimits } from './budget'
export { feedersOf } from './feeders'
