import { AirlockError } from '@shared/errors'
import type { Browser, BrowserContext, Page } from 'playwright'
import { isLoopbackUrl } from './chromium'

/** What a visit returns: the page's title, its visible text (bounded) and optionally a PNG. */
export type BrowserVisit = {
  url: string
  status: number | undefined
  title: string
  text: string
  textTruncated: boolean
  screenshot?: Buffer
}

/** A refused navigation (outside the network policy). */
export class NavigationBlockedError extends AirlockError<'browser.navigation_blocked'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('browser.navigation_blocked', message, {}, options)
  }
}

/**
 * The `browser` provider's live resource: one Chromium for the handle, one context and page for
 * the session. With network `none` only loopback pages load (requests elsewhere are aborted).
 * Every origin a page contacted is kept as lineage.
 */
export class BrowserSession {
  private page?: Page
  private readonly origins = new Set<string>()

  constructor(
    private readonly browser: Browser,
    private readonly context: BrowserContext,
    private readonly loopbackOnly: boolean,
    private readonly maxTextBytes: number
  ) {}

  /** Opens `url` and reads it; `screenshot` adds a PNG of the viewport. */
  async visit(url: string, options: { screenshot?: boolean; timeoutMs?: number } = {}): Promise<BrowserVisit> {
    if (this.loopbackOnly && !isLoopbackUrl(url)) {
      throw new NavigationBlockedError(`${url} is outside the network policy (network none: only loopback pages)`)
    }
    if (!/^(https?|about|data):/.test(url)) throw new NavigationBlockedError(`${url}: only http(s), about: and data: URLs can be visited`)
    const page = await this.currentPage()
    const response = await page.goto(url, { timeout: options.timeoutMs ?? 30_000, waitUntil: 'load' })
    const text = await page
      .locator('body')
      .innerText({ timeout: 5000 })
      .catch(() => '')
    const bytes = Buffer.from(text)
    return {
      url: page.url(),
      status: response?.status(),
      title: await page.title(),
      text: bytes.length > this.maxTextBytes ? bytes.subarray(0, this.maxTextBytes).toString('utf8') : text,
      textTruncated: bytes.length > this.maxTextBytes,
      ...(options.screenshot ? { screenshot: await page.screenshot({ type: 'png' }) } : {})
    }
  }

  /** Origins this session's pages contacted (allowed ones), for lineage. */
  contactedOrigins(): string[] {
    return [...this.origins]
  }

  /** True while the browser is connected and the context usable. */
  isHealthy(): boolean {
    return this.browser.isConnected() && (this.page === undefined || !this.page.isClosed())
  }

  /** Closes the context and the browser this session opened (and nothing else). */
  async close(): Promise<void> {
    await this.context.close().catch(() => undefined)
    await this.browser.close()
  }

  private async currentPage(): Promise<Page> {
    if (this.page && !this.page.isClosed()) return this.page
    await this.context.route('**/*', async (route) => {
      const requestUrl = route.request().url()
      if (this.loopbackOnly && !isLoopbackUrl(requestUrl)) return route.abort('blockedbyclient')
      try {
        this.origins.add(new URL(requestUrl).origin)
      } catch {
        // not an origin-bearing URL
      }
      return route.continue()
    })
    this.page = await this.context.newPage()
    return this.page
  }
}
