import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { allowedTypeCycles, layerRules, mainLayers } from './support/layer-rules.mjs'

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

/** Each import of a file: its resolved target and whether it is type-only (erased at build). */
function edgesOf(file: { path: string; text: string }): { target: string; typeOnly: boolean }[] {
  const edges: { target: string; typeOnly: boolean }[] = []
  for (const match of file.text.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gms))
    edges.push({ target: resolveImport(file.path, match[2]!), typeOnly: match[1] !== undefined })
  for (const match of file.text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) edges.push({ target: resolveImport(file.path, match[1]!), typeOnly: false })
  return edges.filter((edge) => edge.target.startsWith('src/'))
}

/**
 * Every import cycle (strongly connected component of the file graph), as a message: one with a
 * runtime edge inside it always, a type-only one unless `allowedTypeCycles` lists its files.
 */
function cycles(files: { path: string; text: string }[]): string[] {
  const keys = new Set(files.map((file) => relative(root, file.path)))
  // A file that is not on disk (the negative cases) resolves without its extension.
  const known = (target: string) => [target, `${target}.ts`, `${target}/index.ts`].find((candidate) => keys.has(candidate)) ?? target
  const graph = new Map(files.map((file) => [relative(root, file.path), edgesOf(file).map((edge) => ({ ...edge, target: known(edge.target) }))]))
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[] = []
  let next = 0
  const visit = (node: string) => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const { target } of graph.get(node)!) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(node, Math.min(low.get(node)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!))
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member)
      component.push(member)
      if (member === node) break
    }
    if (component.length < 2) return
    const members = new Set(component)
    const inner = component.flatMap((from) =>
      graph
        .get(from)!
        .filter((edge) => members.has(edge.target))
        .map((edge) => ({ from, ...edge }))
    )
    // A runtime cycle: the runtime edges alone still connect the component (checked on the runtime subgraph).
    const runtime = runtimeCycle(
      component,
      inner.filter((edge) => !edge.typeOnly)
    )
    if (runtime) found.push(`runtime import cycle: ${runtime.join(' -> ')}`)
    else if (!component.every((member) => allowedTypeCycles.some((allowed) => allowed.within.test(member))))
      found.push(`type-only import cycle not listed in allowedTypeCycles: ${component.sort().join(', ')}`)
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

/** A cycle through runtime edges among `members`, as a path, or undefined. */
function runtimeCycle(members: string[], edges: { from: string; target: string }[]): string[] | undefined {
  const out = new Map<string, string[]>()
  for (const edge of edges) out.set(edge.from, [...(out.get(edge.from) ?? []), edge.target])
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const walk = (node: string): string[] | undefined => {
    state.set(node, 'open')
    path.push(node)
    for (const target of out.get(node) ?? []) {
      if (state.get(target) === 'open') return [...path.slice(path.indexOf(target)), target]
      if (!state.has(target)) {
        const cycle = walk(target)
        if (cycle) return cycle
      }
    }
    path.pop()
    state.set(node, 'done')
    return undefined
  }
  for (const member of members)
    if (!state.has(member)) {
      const cycle = walk(member)
      if (cycle) return cycle
    }
  return undefined
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

  it('has a rule for every folder of src/main, and refuses an import of each folder above it', () => {
    const folders = readdirSync(join(root, 'src/main'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(Object.keys(mainLayers).sort()).toEqual(folders.sort())
    for (const [layer, { may }] of Object.entries(mainLayers)) {
      const refused = Object.keys(mainLayers).filter((folder) => folder !== layer && !may.includes(folder))
      const at = (folder: string) => ({ path: join(root, `src/main/${layer}/x.ts`), text: `import { thing } from '../${folder}'` })
      // Each folder it may not import is refused, and each it may import is allowed.
      for (const folder of refused) expect(violations([at(folder)]), `${layer} importing ${folder}`).toHaveLength(1)
      for (const folder of may) expect(violations([at(folder)]), `${layer} importing ${folder}`).toEqual([])
    }
    expect(violations([{ path: join(root, 'src/main/gateway/y.ts'), text: "import type { Host } from '../host'" }])).toHaveLength(1)
    expect(violations([{ path: join(root, 'src/main/console/y.ts'), text: "import { provisionImages } from '../providers'" }])).toHaveLength(1)
    expect(violations([{ path: join(root, 'src/main/cli/commands/y.ts'), text: "import { openStore } from '../../store'" }])).toHaveLength(1)
    expect(violations([{ path: join(root, 'src/main/store/y.ts'), text: "import type { SkillLedger } from '../files/skills'" }])).toHaveLength(1)
    expect(violations([{ path: join(root, 'src/main/host/y.ts'), text: "import { app } from 'electron'" }])).toHaveLength(1)
  })

  it('the source tree has no import cycle but the type-only ones listed with a reason', () => {
    const files = sourceFiles(join(root, 'src')).map((path) => ({ path, text: readFileSync(path, 'utf8') }))
    expect(cycles(files)).toEqual([])
  })

  it('finds a runtime cycle, and a type-only cycle that is not listed', () => {
    const at = (path: string, text: string) => ({ path: join(root, path), text })
    expect(cycles([at('src/main/core/a.ts', "import { b } from './b'"), at('src/main/core/b.ts', "import { a } from './a'")])).toEqual([
      expect.stringMatching(/^runtime import cycle: src\/main\/core\/(a|b)\.ts -> /)
    ])
    expect(cycles([at('src/main/core/a.ts', "import { b } from './b'"), at('src/main/core/b.ts', "import type { A } from './a'")])).toEqual([
      expect.stringMatching(/^type-only import cycle not listed/)
    ])
    expect(
      cycles([at('src/main/core/policy/shell/a.ts', "import { b } from './b'"), at('src/main/core/policy/shell/b.ts', "import type { A } from './a'")])
    ).toEqual([])
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
