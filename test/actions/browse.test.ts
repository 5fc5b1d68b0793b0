import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentProfileDefaults } from '@shared/agents'
import { browseAction, type BrowseData } from '../../src/main/actions/browse'
import type { WebBrowser } from '../../src/main/core/live-resources/data'
import { BrowserProvider, type BrowserSession } from '../../src/main/providers'
import { findChromium, skipReasonFor } from '../support/components'
import { dataActionHarness } from './data-action-harness'

/** Compile-time proof that the provider's live resource is what the action uses. */
export function structural(session: BrowserSession): WebBrowser {
  return session
}

/** A local HTTP server that counts its requests. */
async function serve(
  handler: (path: string) => { status?: number; type?: string; body: string; location?: string }
): Promise<{ server: Server; origin: string; paths: string[] }> {
  const paths: string[] = []
  const server = createServer((request, response) => {
    paths.push(request.url ?? '')
    const reply = handler(request.url ?? '/')
    response.writeHead(reply.status ?? 200, { 'content-type': reply.type ?? 'text/html', ...(reply.location ? { location: reply.location } : {}) })
    response.end(reply.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, paths }
}

const skip = skipReasonFor('Chromium', findChromium())

describe.skipIf(skip !== undefined)(`browse through the dispatcher and the real browser provider${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const harness = dataActionHarness([new BrowserProvider()])
  harness.registry.register(browseAction)
  const { call } = harness
  const agent = (profile = {}) => harness.agent(['browse'], { network: 'full', ...profile })
  let site: Awaited<ReturnType<typeof serve>>
  let images: Awaited<ReturnType<typeof serve>>

  beforeAll(async () => {
    images = await serve((path) =>
      path === '/landing'
        ? { body: '<title>Landed</title><p>after the redirect</p>' }
        : { type: 'image/svg+xml', body: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>' }
    )
    site = await serve((path) => {
      if (path === '/redirect') return { status: 302, body: '', location: `${images.origin}/landing` }
      if (path === '/big') return { body: `<title>Big</title><p>${'word '.repeat(5000)}</p>` }
      if (path === '/missing') return { status: 404, body: '<title>Not here</title>nothing' }
      return {
        body: `<html><head><title>Airlock browse test</title></head><body><h1>Hello from the test server</h1><img src="${images.origin}/pixel.svg"></body></html>`
      }
    })
  })
  afterAll(async () => {
    await harness.close()
    site.server.close()
    images.server.close()
  })

  it('network full: title, final URL, text, and a PNG screenshot in the call execution area; every origin reached is lineage', async () => {
    const result = await call('browse', { url: `${site.origin}/` }, agent())
    expect(result).toMatchObject({
      ok: true,
      status: 'success',
      data: { url: `${site.origin}/`, status: 200, title: 'Airlock browse test', textTruncated: false }
    })
    expect((result.data as BrowseData).text).toContain('Hello from the test server')
    const [screenshot] = result.artifacts
    expect(screenshot).toMatchObject({
      name: 'screenshot.png',
      mediaType: 'image/png',
      path: join(harness.workspace, '.airlock', 'executions', String(result.meta.callId), 'output', 'screenshot.png')
    })
    const png = readFileSync(screenshot!.path)
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    expect(screenshot).toMatchObject({ bytes: png.length, sha256: createHash('sha256').update(png).digest('hex') })
    const end = harness.history.ends.find((e) => e.callId === result.meta.callId)
    expect(end?.lineage).toEqual(
      expect.arrayContaining([
        { kind: 'http', endpoint: site.origin },
        { kind: 'http', endpoint: images.origin }
      ])
    )
    expect(end?.artifacts).toEqual(result.artifacts)
    expect(images.paths).toContain('/pixel.svg')
  })

  it('a redirect ends at the final URL (recorded too); "text" takes no screenshot; HTTP errors are said', async () => {
    const session = agent()
    const redirected = await call('browse', { url: `${site.origin}/redirect`, action: 'text' }, session)
    expect(redirected).toMatchObject({ status: 'success', data: { url: `${images.origin}/landing`, title: 'Landed' }, artifacts: [] })
    expect(harness.history.ends.find((e) => e.callId === redirected.meta.callId)?.lineage).toEqual(
      expect.arrayContaining([{ kind: 'http', endpoint: images.origin }])
    )
    const missing = await call('browse', { url: `${site.origin}/missing`, action: 'text' }, session)
    expect(missing).toMatchObject({ status: 'success', data: { status: 404, title: 'Not here' } })
    expect(missing.diagnostics).toContain('the page answered HTTP 404')
  })

  it('text past the agent output limit is cut and flagged', async () => {
    const result = await call('browse', { url: `${site.origin}/big`, action: 'text' }, agent({ limits: { ...agentProfileDefaults.limits, outputBytes: 100 } }))
    expect(result).toMatchObject({ status: 'success', data: { textTruncated: true } })
    expect(Buffer.byteLength((result.data as BrowseData).text)).toBeLessThanOrEqual(100)
    expect(result.diagnostics.join('\n')).toMatch(/the page text was cut at \d+ bytes/)
  })

  it('the same call with network none is blocked (rule network.none) before any browser or request; proxy is blocked too', async () => {
    const before = site.paths.length
    const session = agent({ network: 'none' })
    const result = await call('browse', { url: `${site.origin}/` }, session)
    expect(result).toMatchObject({
      ok: false,
      status: 'blocked',
      error: { code: 'policy.blocked', message: expect.stringMatching(/network is none/) },
      meta: { policy: { decision: 'deny', rule: 'network.none' } },
      artifacts: []
    })
    expect(harness.history.ends.find((e) => e.callId === result.meta.callId)).toMatchObject({ status: 'blocked', lineage: [] })
    expect(harness.manager.list({ scope: 'session', ownerId: session.sessionId })).toEqual([])
    const proxied = await call('browse', { url: `${site.origin}/` }, agent({ network: 'proxy' }))
    expect(proxied).toMatchObject({ status: 'blocked', meta: { policy: { rule: 'network.proxy' } } })
    expect(site.paths.length).toBe(before)
  })

  it('only http(s) URLs are input; the error names the field', async () => {
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'not a url', 'data:text/html,hi']) {
      expect(await call('browse', { url }, agent())).toMatchObject({
        status: 'error',
        error: { code: 'invalid_input', message: expect.stringMatching(/url: must be an absolute http/) }
      })
    }
    expect(await call('browse', { url: `${site.origin}/`, action: 'click' }, agent())).toMatchObject({ error: { message: expect.stringMatching(/action/) } })
  })
})
