import type { CommandAnalysis, SimpleCommand } from '../command-analysis'
import { loadCommandAnalyzer } from './index'

/** Analyses a line that must analyse (`ok: true`); tests fail loudly otherwise. */
export async function analyzeOk(line: string): Promise<Extract<CommandAnalysis, { ok: true }>> {
  const result = (await loadCommandAnalyzer()).analyze(line)
  if (!result.ok) throw new Error(`expected an analysis of ${JSON.stringify(line)}, got ${result.rule}: ${result.reason}`)
  return result
}

/** The argv values of every command, in order. */
export function argvs(commands: SimpleCommand[]): string[][] {
  return commands.map((c) => c.argv.map((w) => w.value))
}
