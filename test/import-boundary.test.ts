import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { layerRules } from './support/layer-rules.mjs'

const root = resolve(__dirname, '..')

/** Every import specifier in a source text (static, dynamic, re-export, require). */
function importsOf(text: string): string[] {
  const found: string[] = []
  const patterns = [
    /\bimport\s+(?:type\s+)?[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bexport\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g
  ]
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!)
  return found
}

/** Resolves a specifier to a repo-relative path (our files) or leaves it as a package name. */
function resolveImport(fromFile: string, specifier: string): string {
  let target: string
  if (specifier.startsWith('@shared/')) target = join(root, 'src/shared', specifier.slice('@shared/'.length))
  else if (specifier.startsWith('@renderer/')) target = join(root, 'src/renderer/src', specifier.slice('@renderer/'.length))
  else if (specifier.startsWith('.')) target = resolve(dirname(fromFile), specifier)
  else return specifier
  for (const candidate of [target, `${target}.ts`, `${target}.tsx`, join(target, 'index.ts'), join(target, 'index.tsx')]) {
    try {
      if (statSync(candidate).isFile()) return relative(root, candidate)
    } catch {
      // try the next candidate
    }
  }
  return relative(root, target)
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : []
  })
}

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1')
}

/** Every (file, import, message) that breaks the layer rule. */
function violations(files: { path: string; text: string }[]): string[] {
  const found: string[] = []
  for (const file of files) {
    const rel = relative(root, file.path)
    for (const rule of layerRules.filter((r) => rel.startsWith(r.dir))) {
      for (const specifier of importsOf(file.text)) {
        const target = resolveImport(file.path, specifier)
        for (const forbidden of rule.forbidden) {
          if (forbidden.targets.some((pattern) => pattern.test(target))) {
            found.push(`${rel} imports ${specifier}: ${forbidden.message}`)
          }
        }
      }
      if (rule.layer === 'shared' && /\b(window|document|localStorage)\./.test(withoutComments(file.text))) {
        found.push(`${rel} uses the DOM: src/shared must run in main, preload and renderer alike.`)
      }
    }
  }
  return found
}

describe('import boundary (SPEC §2 layer rule)', () => {
  it('the source tree has no layer violations', () => {
    const files = sourceFiles(join(root, 'src')).map((path) => ({ path, text: readFileSync(path, 'utf8') }))
    expect(files.length).toBeGreaterThan(20)
    expect(violations(files)).toEqual([])
  })

  it('detects each kind of violation the rule forbids', () => {
    const at = (path: string, text: string) => ({ path: join(root, path), text })
    const found = violations([
      at('src/main/core/x.ts', "import { openStore } from '../store'"),
      at('src/main/core/y.ts', "import { app } from 'electron'"),
      at('src/main/core/z.ts', "export * from '../providers/bash'"),
      at('src/renderer/src/a.ts', "import { createHost } from '../../main/host'"),
      at('src/shared/b.ts', "import { readFileSync } from 'node:fs'"),
      at('src/shared/c.ts', 'export const width = () => window.innerWidth'),
      at('src/main/providers/p/d.ts', "const s = require('../../store')")
    ])
    expect(found).toHaveLength(7)
  })

  it('allows the imports the rule permits', () => {
    const at = (path: string, text: string) => ({ path: join(root, path), text })
    expect(
      violations([
        at('src/main/core/ok.ts', "import { z } from 'zod'\nimport type { Result } from '@shared/result'"),
        at('src/main/store/ok.ts', "import Database from 'better-sqlite3'"),
        at('src/renderer/src/ok.ts', "import { airlockContract } from '@shared/ipc'")
      ])
    ).toEqual([])
  })
})
