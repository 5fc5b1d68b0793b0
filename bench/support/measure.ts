import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** One benchmark figure in the shape of bench/results.json (TESTING.md). */
export type BenchResult = {
  name: string
  unit: string
  median: number
  p95: number
  samples: number
  baseline?: { median: number; p95: number }
  ratio?: number
  note?: string
}

/** Median and 95th percentile of a sample. */
export function summarise(values: number[]): { median: number; p95: number } {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))]!
  return { median: at(0.5), p95: at(0.95) }
}

/** Times `pipeline` and `baseline` alternately (same noise for both) and returns the comparison. */
export async function compare(options: {
  name: string
  samples: number
  warmup?: number
  pipeline: () => Promise<unknown>
  baseline: () => Promise<unknown>
  note?: string
  /** Untimed pause before each sample (an agent's calls come seconds apart: what a provider does between them is not the call's). */
  pauseMs?: number
}): Promise<BenchResult> {
  const pipelineMs: number[] = []
  const baselineMs: number[] = []
  for (let i = 0; i < (options.warmup ?? 3); i++) {
    await options.pipeline()
    await options.baseline()
  }
  for (let i = 0; i < options.samples; i++) {
    const order = i % 2 === 0 ? (['pipeline', 'baseline'] as const) : (['baseline', 'pipeline'] as const)
    for (const which of order) {
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs))
      const started = performance.now()
      await options[which]()
      ;(which === 'pipeline' ? pipelineMs : baselineMs).push(performance.now() - started)
    }
  }
  const pipeline = summarise(pipelineMs)
  const baseline = summarise(baselineMs)
  return {
    name: options.name,
    unit: 'ms',
    ...round(pipeline),
    samples: options.samples,
    baseline: round(baseline),
    ratio: Number((pipeline.median / baseline.median).toFixed(3)),
    note: options.note
  }
}

/**
 * Compares two ways of downloading `megabytes` in MB/s: each returns the seconds one download took;
 * they alternate (same noise for both) for `rounds` rounds, the first a warm-up. The ratio is
 * pipeline over baseline (higher is better).
 */
export async function compareThroughput(options: {
  name: string
  megabytes: number
  rounds?: number
  pipeline: () => Promise<number>
  baseline: () => Promise<number>
  note: string
}): Promise<BenchResult> {
  const rates = { pipeline: [] as number[], baseline: [] as number[] }
  for (let round = 0; round < (options.rounds ?? 8); round++) {
    for (const which of round % 2 === 0 ? (['pipeline', 'baseline'] as const) : (['baseline', 'pipeline'] as const)) {
      const seconds = await options[which]()
      if (round > 0) rates[which].push(options.megabytes / seconds)
    }
  }
  const pipeline = summarise(rates.pipeline)
  const baseline = summarise(rates.baseline)
  return {
    name: options.name,
    unit: 'MB/s',
    median: Math.round(pipeline.median),
    p95: Math.round(pipeline.p95),
    samples: rates.pipeline.length,
    baseline: { median: Math.round(baseline.median), p95: Math.round(baseline.p95) },
    ratio: Math.round((pipeline.median / baseline.median) * 1000) / 1000,
    note: options.note
  }
}

function round(value: { median: number; p95: number }) {
  return { median: Number(value.median.toFixed(3)), p95: Number(value.p95.toFixed(3)) }
}

/** Stores results of one bench file; scripts/bench.mjs merges them into bench/results.json. */
export function record(file: string, results: BenchResult[]): void {
  const dir = join(__dirname, '..', '.results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${file}.json`), JSON.stringify(results, null, 2))
}
