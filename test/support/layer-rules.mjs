// The layer rule of SPEC §2 as data: which folders may not import what. Read by eslint.config.mjs
// (no-restricted-imports) and by test/import-boundary.test.ts (walks the resolved import graph).
// `patterns` are gitignore-style for ESLint; `targets` are regular expressions over the resolved
// import (a repo-relative path like `src/main/store/index.ts`, or a bare package name).

const nodeBuiltins = /^(node:|fs$|path$|os$|child_process$|crypto$|http$|https$|net$|url$|util$|stream$|events$|worker_threads$)/

/** @type {{ layer: string, files: string[], dir: string, forbidden: { patterns: string[], targets: RegExp[], message: string }[] }[]} */
export const layerRules = [
  {
    layer: 'shared',
    dir: 'src/shared/',
    files: ['src/shared/**/*.{ts,tsx}'],
    forbidden: [
      {
        patterns: ['electron', 'node:*', 'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'net', 'react', 'react-dom', '**/main/**', '**/renderer/**', '**/preload/**'],
        targets: [/^electron$/, nodeBuiltins, /^react(-dom)?$/, /^src\/(main|renderer|preload)\//],
        message: 'src/shared is pure TypeScript: no electron, node:* or DOM, and nothing from main, preload or renderer.'
      }
    ]
  },
  {
    layer: 'core',
    dir: 'src/main/core/',
    files: ['src/main/core/**/*.ts'],
    forbidden: [
      {
        patterns: ['electron', '**/providers/**', '**/providers', '**/actions/**', '**/actions', '**/store/**', '**/store', '**/capabilities/**', '**/console/**', '**/gateway/**', '**/ipc/**', '**/app/**', '**/host/**', '**/renderer/**', 'better-sqlite3'],
        targets: [/^electron$/, /^better-sqlite3$/, /^src\/main\/(providers|actions|store|capabilities|console|gateway|ipc|app|host|cli)\//, /^src\/renderer\//],
        message: 'core must not import a provider, an action, the store, electron, the application or the UI (SPEC §2).'
      }
    ]
  },
  {
    layer: 'providers',
    dir: 'src/main/providers/',
    files: ['src/main/providers/**/*.ts'],
    forbidden: [
      {
        patterns: ['electron', '**/actions/**', '**/capabilities/**', '**/console/**', '**/gateway/**', '**/ipc/**', '**/app/**', '**/host/**', '**/store/**', '**/renderer/**'],
        targets: [/^electron$/, /^src\/main\/(actions|capabilities|console|gateway|ipc|app|host|store|cli)\//, /^src\/renderer\//],
        message: 'providers build on core only; policy, actions and the application sit above them.'
      }
    ]
  },
  {
    layer: 'actions',
    dir: 'src/main/actions/',
    files: ['src/main/actions/**/*.ts'],
    forbidden: [
      {
        patterns: ['electron', '**/providers/**', '**/capabilities/**', '**/console/**', '**/gateway/**', '**/ipc/**', '**/app/**', '**/host/**', '**/store/**', '**/renderer/**'],
        targets: [/^electron$/, /^src\/main\/(providers|capabilities|console|gateway|ipc|app|host|store|cli)\//, /^src\/renderer\//],
        message: 'actions use core contracts; they never reach into providers or the application.'
      }
    ]
  },
  {
    layer: 'capabilities',
    dir: 'src/main/capabilities/',
    files: ['src/main/capabilities/**/*.ts'],
    forbidden: [
      {
        patterns: ['electron', '**/providers/**', '**/providers', '**/console/**', '**/gateway/**', '**/ipc/**', '**/app/**', '**/host/**', '**/store/**', '**/renderer/**'],
        targets: [/^electron$/, /^src\/main\/(providers|console|gateway|ipc|app|host|store|cli)\//, /^src\/renderer\//],
        message: 'capability helpers combine actions, policy and requirements; they never expose handles or reach providers or the application.'
      }
    ]
  },
  {
    layer: 'gateway',
    dir: 'src/main/gateway/',
    files: ['src/main/gateway/**/*.ts'],
    forbidden: [
      {
        patterns: ['electron', '**/providers/**', '**/providers', '**/store/**', '**/store', '**/renderer/**', 'better-sqlite3'],
        targets: [/^electron$/, /^better-sqlite3$/, /^src\/main\/(providers|store)\//, /^src\/renderer\//],
        message: "the gateway reaches agents only through the host's sessions: no electron (it runs headless too), no provider or store internals."
      }
    ]
  },
  {
    layer: 'renderer',
    dir: 'src/renderer/',
    files: ['src/renderer/**/*.{ts,tsx}'],
    forbidden: [
      {
        patterns: ['electron', 'node:*', '**/main/**', '**/preload/index', 'better-sqlite3'],
        targets: [/^electron$/, nodeBuiltins, /^better-sqlite3$/, /^src\/main\//, /^src\/preload\/index\.ts$/],
        message: 'the renderer talks to main only through the typed contract (window.airlock or the WebSocket).'
      }
    ]
  },
  {
    layer: 'preload',
    dir: 'src/preload/',
    files: ['src/preload/**/*.ts'],
    forbidden: [
      {
        patterns: ['**/main/**', '**/renderer/**', 'node:*'],
        targets: [/^src\/(main|renderer)\//, nodeBuiltins],
        message: 'preload builds window.airlock from the shared contract and nothing else.'
      }
    ]
  }
]
