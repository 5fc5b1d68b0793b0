import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'

// Benchmarks run one file at a time so they do not compete for the two cores.
export default defineConfig({
  resolve: { alias: { '@shared': resolve(__dirname, '../src/shared') } },
  test: {
    root: resolve(__dirname, '..'),
    include: ['bench/**/*.bench.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 600_000
  }
})
