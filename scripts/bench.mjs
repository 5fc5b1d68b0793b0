#!/usr/bin/env node
// `npm run bench`: runs bench/*.bench.ts one at a time, merges their figures into
// bench/results.json (TESTING.md shape) and prints a table. Never part of `npm test`.
import { spawnSync } from 'node:child_process'
import { cpus, totalmem } from 'node:os'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const partial = join(root, 'bench', '.results')
rmSync(partial, { recursive: true, force: true })
const run = spawnSync(join(root, 'node_modules', '.bin', 'vitest'), ['run', '--config', 'bench/vitest.config.ts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit'
})
const results = readdirSync(partial, { withFileTypes: true })
  .filter((entry) => entry.name.endsWith('.json'))
  .flatMap((entry) => JSON.parse(readFileSync(join(partial, entry.name), 'utf8')))
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${process.platform}-${process.arch}`
writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify({ machine, results }, null, 2)}\n`)
console.log(`\n${machine}`)
console.table(
  results.map((r) => ({
    name: r.name,
    unit: r.unit,
    median: r.median,
    p95: r.p95,
    samples: r.samples,
    baseline: r.baseline ? `${r.baseline.median} / ${r.baseline.p95}` : '',
    ratio: r.ratio ?? ''
  }))
)
process.exit(run.status ?? 1)
