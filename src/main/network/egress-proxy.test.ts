import { existsSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../test/support/temp-home'
import { EgressProxy } from './egress-proxy'
import { egressGate } from './egress-gate'

const gate = egressGate({ rules: () => [], pinned: () => undefined, agentOf: () => undefined, ask: async () => false })

describe('egress endpoints on disk', () => {
  it('a crashed process leaves endpoint folders; the next start sweeps them before any opens, and a closed endpoint leaves none', async () => {
    const dir = makeTempDir('airlock-egress-sweep-')
    try {
      const runDir = join(dir.path, 'run')
      const crashed = new EgressProxy({ runDir, gate })
      const left = await crashed.open({ scope: 'session', ownerId: 's1' })
      // (the process "crashes": the endpoint is never closed)
      expect(existsSync(join(left.socketDir, left.socketName))).toBe(true)
      const next = new EgressProxy({ runDir, gate })
      expect(next.sweep()).toEqual([left.socketDir.split('/').at(-1)])
      expect(readdirSync(runDir)).toEqual([])
      const fresh = await next.open({ scope: 'session', ownerId: 's2' })
      // A connection to the fresh endpoint is answered (the sweep did not break the folder it lives in).
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(join(fresh.socketDir, fresh.socketName), () => socket.write('CONNECT pkgs.test:443 HTTP/1.1\r\n\r\n'))
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1').split('\r\n')[0]!))
      })
      expect(answer).toBe('HTTP/1.1 403 Forbidden')
      await fresh.close()
      await left.close()
      expect(readdirSync(runDir)).toEqual([])
      expect(new EgressProxy({ runDir: join(dir.path, 'absent'), gate }).sweep()).toEqual([])
    } finally {
      dir.remove()
    }
  })

  it('a socket path longer than a unix socket allows is refused with what to do, leaving nothing behind', async () => {
    const dir = makeTempDir('airlock-egress-long-')
    try {
      const runDir = join(dir.path, 'x'.repeat(120))
      await expect(new EgressProxy({ runDir, gate }).open({ scope: 'session', ownerId: 's' })).rejects.toThrow(
        /longer than a unix socket allows \(107 bytes\); set TMPDIR/
      )
      expect(readdirSync(runDir)).toEqual([])
    } finally {
      dir.remove()
    }
  })

  it("the sweep removes only this proxy's own folders: not another prefix's, not a link, not a file", async () => {
    const dir = makeTempDir('airlock-egress-sweep-own-')
    try {
      const mine = new EgressProxy({ runDir: dir.path, prefix: 'airlock-egress-aaaa-', gate })
      const theirs = new EgressProxy({ runDir: dir.path, prefix: 'airlock-egress-bbbb-', gate })
      const left = await mine.open({ scope: 'session', ownerId: 's' })
      const other = await theirs.open({ scope: 'session', ownerId: 's' })
      symlinkSync(other.socketDir, join(dir.path, 'airlock-egress-aaaa-link'))
      writeFileSync(join(dir.path, 'airlock-egress-aaaa-file'), '')
      expect(new EgressProxy({ runDir: dir.path, prefix: 'airlock-egress-aaaa-', gate }).sweep()).toEqual([left.socketDir.split('/').at(-1)])
      expect(readdirSync(dir.path).sort()).toEqual(['airlock-egress-aaaa-file', 'airlock-egress-aaaa-link', other.socketDir.split('/').at(-1)].sort())
      expect(existsSync(join(other.socketDir, other.socketName))).toBe(true)
      await other.close()
    } finally {
      dir.remove()
    }
  })
})
