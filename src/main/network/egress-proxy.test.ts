import { existsSync, readdirSync } from 'node:fs'
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
})
