import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'

// Unit tests sit beside their source; test/ holds integration tests with real components.
// Two cores here: keep forks few so real sandboxes and containers are not starved.
export default defineConfig({
  resolve: {
    alias: {
      '@shared': resolve(__dirname, 'src/shared'),
      '@renderer': resolve(__dirname, 'src/renderer/src')
    }
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/electron/**', 'node_modules/**'],
    globalSetup: ['test/support/build-once.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
