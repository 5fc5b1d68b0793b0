import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Readable } from 'node:stream'
import tar from 'tar-stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sandboxIdentity } from '../../src/main/core'
import { packArea, transferLimitBytes, transferLimitEntries, unpackArea } from '../../src/main/providers/docker/engine-transfer'
import { makeTempDir } from '../support/temp-home'

// What a remote engine hands back (`getArchive` of a run's execution area) is written by sandboxed
// code, so the tar is hostile input to the host, which often runs as root. Each case is a tar a
// container could produce (or a compromised engine could send) and what must hold on this host.

type Entry = { name: string; type?: tar.Headers['type']; body?: Buffer; mode?: number; linkname?: string; size?: number }

/** A tar stream made of `entries` (bodies as given; a `size` without a body makes a lying header). */
function tarOf(entries: Entry[]): Readable {
  const pack = tar.pack()
  for (const entry of entries) {
    const body = entry.body ?? (entry.type === 'file' || entry.type === undefined ? Buffer.alloc(0) : undefined)
    pack.entry({ name: entry.name, type: entry.type ?? 'file', mode: entry.mode ?? 0o644, linkname: entry.linkname, size: entry.size ?? body?.length }, body)
  }
  pack.finalize()
  return pack as unknown as Readable
}

describe('the engine transfer against hostile archives', () => {
  let dir: ReturnType<typeof makeTempDir>
  let area: string
  let outside: string
  const identity = sandboxIdentity()

  beforeEach(() => {
    dir = makeTempDir('airlock-transfer-', { outsideTmp: true })
    area = join(dir.path, 'call-1')
    outside = join(dir.path, 'outside')
    mkdirSync(join(area, 'output'), { recursive: true })
    mkdirSync(outside)
    writeFileSync(join(outside, 'target'), 'host file')
  })
  afterEach(() => dir.remove())

  const unpack = (entries: Entry[]) => unpackArea(tarOf(entries), area, identity)
  const outsideUnchanged = () => {
    expect(readdirSync(outside)).toEqual(['target'])
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('host file')
  }

  it('writes regular files and directories of the area, owned by the sandbox identity, without setuid bits', async () => {
    expect(
      await unpack([
        { name: 'call-1/', type: 'directory' },
        { name: 'call-1/output/a/b.txt', body: Buffer.from('ok'), mode: 0o4755 }
      ])
    ).toBe(0)
    const file = join(area, 'output', 'a', 'b.txt')
    expect(readFileSync(file, 'utf8')).toBe('ok')
    expect(statSync(file).uid).toBe(identity.uid)
    expect(statSync(file).mode & 0o7000).toBe(0)
  })

  it.each([
    ['a parent escape', 'call-1/../outside/target'],
    ['an absolute name', '/etc/airlock-pwned'],
    ['another area', 'call-2/output/x'],
    ['a bare parent', '../outside/target']
  ])('refuses %s and writes nothing outside', async (_, name) => {
    await expect(unpack([{ name, body: Buffer.from('pwned') }])).rejects.toMatchObject({ code: 'docker.copy_refused' })
    outsideUnchanged()
  })

  it('skips symlinks, hard links, devices and fifos (counted), writing none of them', async () => {
    const skipped = await unpack([
      { name: 'call-1/output/link', type: 'symlink', linkname: join(outside, 'target') },
      { name: 'call-1/output/hard', type: 'link', linkname: join(outside, 'target') },
      { name: 'call-1/output/null', type: 'character-device' },
      { name: 'call-1/output/pipe', type: 'fifo' }
    ])
    expect(skipped).toBe(4)
    expect(readdirSync(join(area, 'output'))).toEqual([])
    outsideUnchanged()
  })

  it('a link planted on the host side is not written through (file or directory)', async () => {
    symlinkSync(join(outside, 'target'), join(area, 'output', 'file-link'))
    symlinkSync(outside, join(area, 'output', 'dir-link'))
    expect(await unpack([{ name: 'call-1/output/file-link', body: Buffer.from('pwned') }])).toBe(1)
    await expect(unpack([{ name: 'call-1/output/dir-link/new', body: Buffer.from('pwned') }])).rejects.toThrow(/symbolic link/)
    await expect(unpack([{ name: 'call-1/output/dir-link/', type: 'directory' }])).rejects.toThrow(/symbolic link/)
    expect(lstatSync(join(area, 'output', 'file-link')).isSymbolicLink()).toBe(true)
    outsideUnchanged()
  })

  it('refuses more bytes than the limit, and more entries than the limit', async () => {
    const big = Buffer.alloc(transferLimitBytes / 4)
    await expect(unpack([1, 2, 3, 4, 5].map((n) => ({ name: `call-1/output/${n}`, body: big })))).rejects.toMatchObject({ code: 'docker.copy_refused' })
    const many = Array.from({ length: transferLimitEntries + 1 }, (_, n) => ({ name: `call-1/output/d${n}/`, type: 'directory' as const }))
    await expect(unpack(many)).rejects.toMatchObject({ code: 'docker.copy_refused' })
  }, 60_000)

  it('packs the area without following a link in it, keeping only permission bits', async () => {
    writeFileSync(join(area, 'output', 'real.txt'), 'x', { mode: 0o755 })
    symlinkSync(join(outside, 'target'), join(area, 'output', 'link'))
    const names: Array<[string, string, number]> = []
    const extract = tar.extract()
    extract.on('entry', (header, body, next) => {
      names.push([header.name, header.type ?? 'file', header.mode ?? 0])
      body.on('end', next)
      body.resume()
    })
    await new Promise((resolve) => {
      extract.on('finish', resolve)
      packArea(area).pipe(extract)
    })
    expect(names.map(([name]) => name).sort()).toEqual(['call-1/', 'call-1/output/', 'call-1/output/real.txt'])
    expect(names.find(([name]) => name.endsWith('real.txt'))![2] & 0o7777).toBe(0o755)
  })
})
