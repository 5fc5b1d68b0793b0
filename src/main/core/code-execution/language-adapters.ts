import type { CodeLanguage } from '@shared/code-execution'
import type { BundleManifest } from './code-bundle'

/** One step of running a bundle, run in `source/` with `../build` and `../output` beside it. */
export type ExecutionStep = { name: 'install' | 'build' | 'run'; argv: string[]; env?: Record<string, string> }

/** How a language turns a manifest into steps. */
export type LanguageAdapter = {
  language: CodeLanguage
  defaultEntrypoint: string
  steps(manifest: BundleManifest, options: { installDependencies: boolean }): ExecutionStep[]
}

const adapters: Record<CodeLanguage, LanguageAdapter> = {
  python: {
    language: 'python',
    defaultEntrypoint: 'main.py',
    steps: (m, { installDependencies }) => [
      ...(installDependencies && m.dependencies?.kind === 'requirements.txt'
        ? [{ name: 'install' as const, argv: ['python3', '-m', 'pip', 'install', '--no-input', '--target', '../build/deps', '-r', m.dependencies.path] }]
        : []),
      { name: 'run', argv: ['python3', m.entrypoint, ...m.args], env: m.dependencies ? { PYTHONPATH: '../build/deps' } : undefined }
    ]
  },
  nodejs: {
    language: 'nodejs',
    defaultEntrypoint: 'main.js',
    steps: (m, { installDependencies }) => [
      ...(installDependencies && m.dependencies?.kind === 'package.json'
        ? [{ name: 'install' as const, argv: ['sh', '-c', 'cp package.json ../build/ && cd ../build && npm install --no-audit --no-fund --ignore-scripts'] }]
        : []),
      { name: 'run', argv: ['node', m.entrypoint, ...m.args], env: m.dependencies ? { NODE_PATH: '../build/node_modules' } : undefined }
    ]
  },
  bash: {
    language: 'bash',
    defaultEntrypoint: 'main.sh',
    steps: (m) => [{ name: 'run', argv: ['bash', m.entrypoint, ...m.args] }]
  },
  go: {
    language: 'go',
    defaultEntrypoint: 'main.go',
    steps: (m) => [
      {
        name: 'build',
        argv: ['go', 'build', '-o', '../build/program', m.entrypoint],
        env: { GOCACHE: '/tmp/go-cache', GOPATH: '/tmp/go', GOFLAGS: '-mod=mod' }
      },
      { name: 'run', argv: ['../build/program', ...m.args] }
    ]
  },
  cpp: {
    language: 'cpp',
    defaultEntrypoint: 'main.cpp',
    steps: (m) => [
      { name: 'build', argv: ['g++', '-O2', '-std=c++17', '-o', '../build/program', m.entrypoint] },
      { name: 'run', argv: ['../build/program', ...m.args] }
    ]
  }
}

/** The adapter of a language. */
export function adapterFor(language: CodeLanguage): LanguageAdapter {
  return adapters[language]
}
