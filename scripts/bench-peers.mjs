#!/usr/bin/env node
// `npm run bench:peers`: Airlock's sandboxed command paths side by side with its peers' (issue 29).
// Installs the peers' published packages into a temporary folder (never a dependency of the app),
// then runs bench/peers.bench.ts, which alternates every path in one run. Not part of `npm test`
// nor of `npm run bench`. AIRLOCK_PEERS_DIR=<folder> reuses an earlier install.
//   @anthropic-ai/sandbox-runtime  as a library and as the `srt` CLI (needs socat and ripgrep)
//   @openai/codex                  `codex sandbox`
//   @openai/codex-shell-tool-mcp   its MCP `shell` tool, with the codex build of the same version
//                                  as its codex-linux-sandbox (their versions must match)
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dir = process.env.AIRLOCK_PEERS_DIR ?? mkdtempSync(join(tmpdir(), 'airlock-peers-'))
const npm = (args) => {
  const run = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', ...args], { stdio: 'inherit' })
  if (run.status !== 0) process.exit(run.status ?? 1)
}
if (!existsSync(join(dir, 'node_modules', '@openai', 'codex-shell-tool-mcp'))) {
  console.log(`installing the peers into ${dir}`)
  npm(['@anthropic-ai/sandbox-runtime', '@openai/codex', '@openai/codex-shell-tool-mcp'])
  const { version } = JSON.parse(readFileSync(join(dir, 'node_modules', '@openai', 'codex-shell-tool-mcp', 'package.json'), 'utf8'))
  npm([`codex-for-shell-tool@npm:@openai/codex@${version}`, '@anthropic-ai/sandbox-runtime', '@openai/codex', '@openai/codex-shell-tool-mcp'])
}
for (const tool of ['socat', 'rg']) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
    console.warn(`warning: ${tool} is not installed; srt needs it (apt install socat ripgrep), so its rows will say why they are empty`)
}
const run = spawnSync(join(root, 'node_modules', '.bin', 'vitest'), ['run', '--config', 'bench/vitest.config.ts', 'bench/peers.bench.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, AIRLOCK_PEERS_DIR: dir }
})
const resultsFile = join(root, 'bench', '.results', 'peers.json')
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'))
  console.table(
    results.map((r) => ({
      name: r.name,
      median: r.median,
      p95: r.p95,
      bare: r.baseline?.median ?? '',
      ratio: r.ratio ?? '',
      note: r.note?.startsWith('not measured') ? r.note : ''
    }))
  )
}
process.exit(run.status ?? 1)
