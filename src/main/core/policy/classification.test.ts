import { describe, expect, it } from 'vitest'
import { ClassificationLabelSet } from './classification'

describe('ClassificationLabelSet', () => {
  const labels = new ClassificationLabelSet(
    [
      {
        paths: { 'secrets/**': 'CONFIDENTIAL', '**/*.pem': 'RESTRICTED' },
        domains: { '*.corp.example': 'INTERNAL' },
        databases: { 'data/hr.db': 'RESTRICTED' }
      },
      { paths: { 'secrets/**': 'INTERNAL' }, mcpServers: { wiki: 'INTERNAL' } }
    ],
    [{ name: 'wiki', classification: 'CONFIDENTIAL' }, { name: 'public' }]
  )

  it('labels paths by glob, in any spelling, the highest label winning', () => {
    expect(labels.ofPath('secrets/plan.txt')).toBe('CONFIDENTIAL')
    expect(labels.ofPath('./secrets//plan.txt')).toBe('CONFIDENTIAL')
    expect(labels.ofPath('secrets')).toBe('CONFIDENTIAL')
    expect(labels.ofPath('deep/dir/key.pem')).toBe('RESTRICTED')
    expect(labels.ofPath('secrets/key.pem')).toBe('RESTRICTED')
    expect(labels.ofPath('src/main.ts')).toBe('PUBLIC')
    expect(labels.ofPath('secretsx/plan.txt')).toBe('PUBLIC')
  })

  it('a folder walk meets every label that can lie under it', () => {
    expect(labels.ofTree('.')).toBe('RESTRICTED')
    expect(labels.ofTree('')).toBe('RESTRICTED')
    expect(new ClassificationLabelSet([{ paths: { 'secrets/**': 'CONFIDENTIAL' } }]).ofTree('src')).toBe('PUBLIC')
    expect(new ClassificationLabelSet([{ paths: { 'secrets/**': 'CONFIDENTIAL' } }]).ofTree('secrets/a')).toBe('CONFIDENTIAL')
  })

  it('labels domains exactly or by suffix, databases by glob and MCP servers by name', () => {
    expect(labels.ofDomain('corp.example')).toBe('INTERNAL')
    expect(labels.ofDomain('Wiki.Corp.Example.')).toBe('INTERNAL')
    expect(labels.ofDomain('notcorp.example')).toBe('PUBLIC')
    expect(labels.ofDatabase('./data/hr.db')).toBe('RESTRICTED')
    expect(labels.ofServer('wiki')).toBe('CONFIDENTIAL')
    expect(labels.ofServer('public')).toBe('PUBLIC')
    expect(new ClassificationLabelSet([]).empty).toBe(true)
  })
})

describe('ClassificationLabelSet: globs and databases', () => {
  const labels = new ClassificationLabelSet([{ paths: { 'secrets/**': 'CONFIDENTIAL' }, databases: { 'data.db': 'RESTRICTED' } }])
  it('a glob word gets the level of every label it can reach', () => {
    for (const word of ['sec*/x', 'secret[s]/x', '*/x', 's*', '*', 'secrets/*']) expect(labels.ofPath(word), word).toBe('CONFIDENTIAL')
    for (const word of ['*.py', 'src/*', 'docs/sec*']) expect(labels.ofPath(word), word).toBe('PUBLIC')
  })
  it('a labelled database is a labelled file too', () => {
    expect(labels.ofPath('data.db')).toBe('RESTRICTED')
    expect(labels.ofPath('./data.db')).toBe('RESTRICTED')
  })
})
