#!/usr/bin/env node
// `npm test`: lint, type-check, build, unit + integration tests (vitest), end-to-end tests
// (Playwright: web console in Chromium, Electron shell where its binary exists), then one
// closing line with the totals. AIRLOCK_REQUIRE_ALL=1 turns a missing system component into a failure.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const reports = join(root, 'test-reports')
const bin = (name) => join(root, 'node_modules', '.bin', name)

function run(title, command, args, env = {}) {
  process.stdout.write(`\n=== ${title}\n`)
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } })
  return result.status === 0
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return undefined
  }
}

rmSync(reports, { recursive: true, force: true })
mkdirSync(reports, { recursive: true })

for (const [title, args] of [
  ['lint', ['run', '--silent', 'lint']],
  ['typecheck', ['run', '--silent', 'typecheck']],
  ['build', ['run', '--silent', 'build']]
]) {
  if (!run(title, 'npm', args)) {
    process.stdout.write(`\n${title} failed; tests not run.\ntests: 0 passed, 1 failed\n`)
    process.exit(1)
  }
}

const vitestJson = join(reports, 'vitest.json')
const vitestOk = run(
  'unit and integration tests (vitest)',
  bin('vitest'),
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`],
  {
    AIRLOCK_SKIP_BUILD: '1'
  }
)
const playwrightJson = join(reports, 'playwright.json')
const playwrightOk = run('end-to-end tests (Playwright)', bin('playwright'), ['test'], { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson })

const totals = { passed: 0, failed: 0, skipped: 0 }
const skips = []
const vitest = readJson(vitestJson)
if (vitest) {
  totals.passed += vitest.numPassedTests
  // A file that fails to load counts as a failure even though none of its tests ran.
  totals.failed += vitest.numFailedTests + (vitest.numFailedTestSuites ?? 0)
  totals.skipped += vitest.numPendingTests + vitest.numTodoTests
} else if (!vitestOk) totals.failed += 1
const playwright = readJson(playwrightJson)
if (playwright) {
  totals.passed += playwright.stats.expected + playwright.stats.flaky
  totals.failed += playwright.stats.unexpected
  totals.skipped += playwright.stats.skipped
  const visit = (suite) => {
    for (const spec of suite.specs ?? [])
      for (const t of spec.tests ?? []) for (const a of t.annotations ?? []) if (a.type === 'skip') skips.push(`${spec.title}: ${a.description}`)
    for (const child of suite.suites ?? []) visit(child)
  }
  for (const suite of playwright.suites ?? []) visit(suite)
} else if (!playwrightOk) totals.failed += 1

if (skips.length > 0) process.stdout.write(`\nSkipped, with reasons:\n${skips.map((s) => `  - ${s}`).join('\n')}\n`)
const ok = vitestOk && playwrightOk && totals.failed === 0
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`)
process.exit(ok ? 0 : 1)
