import { defineConfig } from '@playwright/test'

// End-to-end: `web` drives the built web console in the system Chromium; `electron` launches the
// desktop shell where its binary exists. `npm test` builds first (see scripts/test.mjs).
export default defineConfig({
  testDir: 'test',
  tsconfig: './tsconfig.node.json',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  projects: [
    { name: 'web', testMatch: 'e2e/**/*.spec.ts' },
    { name: 'electron', testMatch: 'electron/**/*.spec.ts' }
  ]
})
