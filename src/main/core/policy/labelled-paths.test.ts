import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { ClassificationLabelSet } from './classification'
import { labelledEntries, labelWalkLimit, LabelWalkError } from './labelled-paths'

describe('labelledEntries (what a sandbox hides from a call)', () => {
  let dir: ReturnType<typeof makeTempDir>
  afterEach(() => dir?.remove())

  function workspace(files: string[]): string {
    dir = makeTempDir('airlock-labelled-walk-')
    for (const file of files) {
      mkdirSync(join(dir.path, file, '..'), { recursive: true })
      writeFileSync(join(dir.path, file), 'x')
    }
    return dir.path
  }

  const labels = new ClassificationLabelSet([
    { paths: { 'secrets/**': 'CONFIDENTIAL', '**/*.pem': 'RESTRICTED', 'notes/private.md': 'INTERNAL' }, databases: { 'data/hr.db': 'RESTRICTED' } }
  ])

  it('lists what exists above the level, outermost only: a whole folder, files under a glob, a database', () => {
    const root = workspace(['secrets/a', 'secrets/deep/b.pem', 'src/app.ts', 'deploy/certs/server.pem', 'notes/private.md', 'data/hr.db', '.airlock/x.pem'])
    expect(labelledEntries(root, labels, 'PUBLIC')).toEqual(['data/hr.db', 'deploy/certs/server.pem', 'notes/private.md', 'secrets'])
    expect(labelledEntries(root, labels, 'INTERNAL')).toEqual(['data/hr.db', 'deploy/certs/server.pem', 'secrets'])
    // At CONFIDENTIAL the folder is visible, and the RESTRICTED file inside it is still hidden.
    expect(labelledEntries(root, labels, 'CONFIDENTIAL')).toEqual(['data/hr.db', 'deploy/certs/server.pem', 'secrets/deep/b.pem'])
    expect(labelledEntries(root, labels, 'RESTRICTED')).toEqual([])
  })

  it('does not follow or hide links, and skips what is absent', () => {
    const root = workspace(['elsewhere/key.pem'])
    symlinkSync(join(root, 'elsewhere'), join(root, 'secrets'))
    symlinkSync(join(root, 'elsewhere', 'key.pem'), join(root, 'link.pem'))
    expect(labelledEntries(root, labels, 'PUBLIC')).toEqual(['elsewhere/key.pem'])
  })

  it('refuses (rather than leaving visible) a glob whose folder is too large to list', () => {
    const root = workspace([])
    mkdirSync(join(root, 'many'))
    for (let i = 0; i <= labelWalkLimit; i++) writeFileSync(join(root, 'many', String(i)), '')
    expect(() => labelledEntries(root, labels, 'PUBLIC')).toThrow(LabelWalkError)
    // A folder label costs no walk at all.
    expect(labelledEntries(root, new ClassificationLabelSet([{ paths: { 'many/**': 'INTERNAL' } }]), 'PUBLIC')).toEqual(['many'])
  })
})
