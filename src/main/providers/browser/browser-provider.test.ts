import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { findChromium as findTestChromium, skipReasonFor } from '../../../../test/support/components'
import { ExecutionResourceManager } from '../../core'
import { BrowserProvider } from './browser-provider'
import type { BrowserSession } from './browser-session'

const skip = skipReasonFor('Chromium', findTestChromium())

describe.skipIf(skip !== undefined)(`browser provider${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let server: Server
  let base: string
  const manager = new ExecutionResourceManager().registerProvider(new BrowserProvider())

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/external') {
        response.writeHead(200, { 'content-type': 'text/html' })
        response.end('<html><head><title>Leaky</title><img src="http://203.0.113.7/pixel.png"></head><body>has an external image</body></html>')
        return
      }
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end('<html><head><title>Airlock test page</title></head><body><h1>Hello from the test server</h1></body></html>')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  afterAll(async () => {
    await manager.releaseAll()
    server.close()
  })

  it('opens a page served on 127.0.0.1, reads its title and text, and takes a screenshot', async () => {
    const handle = await manager.ensure({ kind: 'browser', scope: 'session', ownerId: 's1' })
    const visit = await (handle.resource as BrowserSession).visit(`${base}/`, { screenshot: true })
    expect(visit).toMatchObject({ title: 'Airlock test page', status: 200, text: expect.stringContaining('Hello from the test server') })
    expect(visit.screenshot!.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    expect(handle.meta).toMatchObject({ network: 'loopback only' })
  })

  it('with network none, navigation and page requests leave only for loopback', async () => {
    const handle = await manager.ensure({ kind: 'browser', scope: 'session', ownerId: 's2', policy: { networkMode: 'none' } })
    const session = handle.resource as BrowserSession
    await expect(session.visit('http://example.com/')).rejects.toThrow(/outside the network policy/)
    await expect(session.visit('file:///etc/passwd')).rejects.toThrow(/outside the network policy|only http/)
    const visit = await session.visit(`${base}/external`)
    expect(visit.title).toBe('Leaky')
    expect(session.contactedOrigins()).toEqual([base])
  })

  it('health check says ready; release closes the browser it opened', async () => {
    const provider = new BrowserProvider()
    const handle = await manager.ensure({ kind: 'browser', scope: 'session', ownerId: 's3' })
    expect(await provider.healthCheck(handle)).toBe('ready')
    await manager.release(handle)
    expect(await provider.healthCheck(handle)).toBe('unhealthy')
  })

  it('a missing Chromium makes the probe unavailable with the reason and the fix', async () => {
    const local = new ExecutionResourceManager().registerProvider(new BrowserProvider())
    await expect(local.ensure({ kind: 'browser', config: { executablePath: '/nonexistent/chromium' } })).rejects.toThrow(
      /Chromium not found at \/nonexistent\/chromium.*apt install chromium/
    )
    await expect(local.ensure({ kind: 'browser', config: { headless: false } })).rejects.toThrow(/invalid browser config/)
  })
})
