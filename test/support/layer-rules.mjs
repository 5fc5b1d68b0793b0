// The layer rule of SPEC §2 as data, for every folder of the source tree. Read by eslint.config.mjs
// (no-restricted-imports) and by test/import-boundary.test.ts (walks the resolved import graph).
// `patterns` are for ESLint (regular expressions over the written specifier); `targets` are
// regular expressions over the resolved import (a repo-relative path like
// `src/main/store/index.ts`, or a bare package name).

const nodeBuiltins = /^(node:|fs$|path$|os$|child_process$|crypto$|http$|https$|net$|url$|util$|stream$|events$|worker_threads$)/

/**
 * The folders of `src/main`, lowest first, and which of them each may import (besides `src/shared`).
 * A folder never imports one above it: the entry files (`src/main/index.ts`) compose
 * app and cli; host composes everything below it; nothing imports host but app, cli and the entries.
 */
export const mainLayers = {
  core: { may: [], why: 'core holds the contracts and the manager: it imports nothing of the application (SPEC §2).' },
  providers: { may: ['core'], why: 'providers build on core only; policy, actions and the application sit above them.' },
  network: { may: ['core'], why: 'the egress proxy builds on core only; the host wires it to providers.' },
  files: { may: ['core'], why: 'workspace and skill file helpers build on core only; actions and the console use them.' },
  actions: { may: ['core', 'files'], why: 'actions use core contracts and the file helpers; they never reach into providers or the application.' },
  capabilities: {
    may: ['core', 'files', 'actions'],
    why: 'capability helpers combine actions, policy and requirements; they never reach providers or the application.'
  },
  store: { may: ['core'], why: 'the store keeps rows: it knows core types and shared shapes, not the services that use it.' },
  console: {
    may: ['core', 'files', 'capabilities', 'store'],
    why: 'console services sit on the store and core; providers reach them only through ports the host fills.'
  },
  gateway: {
    may: ['core', 'files', 'actions', 'capabilities', 'console'],
    why: 'the gateway reaches the host only through its GatewayDeps port: no host, app, store or provider internals.'
  },
  ipc: { may: ['core', 'console', 'store'], why: 'the contract handlers call console services; the host gives them what they serve.' },
  host: {
    may: ['core', 'providers', 'network', 'files', 'actions', 'capabilities', 'store', 'console', 'gateway', 'ipc'],
    why: 'the host composes everything below it; only app, cli and the entry files import it.'
  },
  app: { may: ['core', 'console', 'gateway', 'ipc', 'host'], why: 'the desktop, web and headless shells run a host; they do not build services themselves.' },
  cli: {
    may: ['core', 'console', 'gateway', 'app', 'host'],
    why: "CLI commands get their services from the host's CLI context: no store, provider or action internals."
  }
}

const folders = Object.keys(mainLayers)

/** Only the application shell (and the entry files) may load electron; only these folders open SQLite. */
const electronAllowed = new Set(['app'])
const sqliteAllowed = new Set(['store', 'providers', 'host'])

/** @type {{ layer: string, files: string[], dir: string, forbidden: { patterns: string[], targets: RegExp[], message: string }[] }[]} */
export const layerRules = [
  {
    layer: 'shared',
    dir: 'src/shared/',
    files: ['src/shared/**/*.{ts,tsx}'],
    forbidden: [
      {
        patterns: ['^electron$', '^node:', '^(fs|path|os|child_process|crypto|http|net)$', '^react(-dom)?$', '/main/', '/renderer/', '/preload/'],
        targets: [/^electron$/, nodeBuiltins, /^react(-dom)?$/, /^src\/(main|renderer|preload)\//],
        message: 'src/shared is pure TypeScript: no electron, node:* or DOM, and nothing from main, preload or renderer.'
      }
    ]
  },
  ...folders.map((layer) => {
    const { may, why } = mainLayers[layer]
    const above = folders.filter((folder) => folder !== layer && !may.includes(folder))
    const packages = [...(electronAllowed.has(layer) ? [] : ['electron']), ...(sqliteAllowed.has(layer) ? [] : ['better-sqlite3'])]
    return {
      layer,
      dir: `src/main/${layer}/`,
      files: [`src/main/${layer}/**/*.ts`],
      forbidden: [
        {
          patterns: [`^(\\.\\./)+(${above.join('|')})(/|$)`, '/renderer/', ...packages.map((name) => `^${name}$`)],
          targets: [
            new RegExp(`^src/main/(${above.join('|')})(/|$)`),
            /^src\/renderer\//,
            /^src\/main\/index\.ts$/,
            ...packages.map((name) => new RegExp(`^${name}$`))
          ],
          message: why
        }
      ]
    }
  }),
  {
    layer: 'renderer',
    dir: 'src/renderer/',
    files: ['src/renderer/**/*.{ts,tsx}'],
    forbidden: [
      {
        patterns: ['^electron$', '^node:', '/main/', '/preload/index', '^better-sqlite3$'],
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
        patterns: ['/main/', '/renderer/', '^node:'],
        targets: [/^src\/(main|renderer)\//, nodeBuiltins],
        message: 'preload builds window.airlock from the shared contract and nothing else.'
      }
    ]
  }
]

/**
 * Import cycles of the source tree allowed because every edge back is `import type` (erased at
 * build), each with its reason. A cycle with a runtime edge back is never allowed.
 */
export const allowedTypeCycles = [
  { within: /^src\/renderer\/src\/features\/[^/]+\/store\//, why: 'a zustand slice names the whole state it is part of; the state composes the slices.' },
  { within: /^src\/main\/core\/policy\/shell\//, why: "the walker's helpers take the LineWalker they extend as a parameter type." },
  {
    within: /^src\/main\/core\/code-execution\/(language-adapters|code-bundle)\.ts$/,
    why: 'a language adapter takes the bundle type the bundle module builds with the adapters.'
  },
  { within: /^src\/main\/network\/egress-(socks|proxy)\.ts$/, why: "the SOCKS5 front takes the proxy's option types; the proxy starts the front." }
]
