import { z } from 'zod'
import type { ExecutionResourceProvider, ProviderProbe, ResourceHandle, ResourceStatus } from '../../core'
import { runBounded } from '../runner/bounded-process'
import { systemPath } from '../runner/run-limits'
import { cached, invalidConfig } from '../provider-helpers'
import { BrowserSession } from './browser-session'
import { chromiumArgs, findChromium } from './chromium'
import { ProviderError } from '../../core/provider-error'

/** The browser provider's config. */
export const browserConfigSchema = z
  .object({
    executablePath: z.string().startsWith('/', 'must be an absolute path').optional(),
    viewport: z
      .object({ width: z.number().int().min(200).max(4000), height: z.number().int().min(200).max(4000) })
      .strict()
      .optional(),
    maxTextBytes: z
      .number()
      .int()
      .min(1024)
      .max(10 * 1024 * 1024)
      .optional()
  })
  .strict()

/**
 * `browser`: a managed Chromium (SPEC §4) through Playwright with the system Chromium (found or
 * configured, never downloaded). One browser per handle, a context and page per session;
 * navigation follows the network policy; release closes only what it opened.
 */
export class BrowserProvider implements ExecutionResourceProvider {
  readonly providerId = 'browser'
  readonly supportedKinds = ['browser'] as const
  private readonly versions = new Map<string, () => Promise<string | undefined>>()

  async probe({ requirement }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = browserConfigSchema.safeParse(requirement.config ?? {})
    if (!config.success) return invalidConfig('browser', config.error)
    const executable = findChromium(config.data.executablePath)
    if (!executable) {
      return {
        available: false,
        reason: `Chromium not found${config.data.executablePath ? ` at ${config.data.executablePath}` : ''}. Install it (Debian/Ubuntu: apt install chromium) or set config.executablePath / AIRLOCK_CHROMIUM`
      }
    }
    const version = await this.versionOf(executable)
    if (!version) return { available: false, reason: `${executable} does not run (chromium --version failed)` }
    return { available: true, capabilities: { browser: 'chromium', version, executablePath: executable } }
  }

  async ensure({ requirement, policy }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = browserConfigSchema.parse(requirement.config ?? {})
    const executablePath = findChromium(config.executablePath)
    if (!executablePath) throw new ProviderError('host_tool_missing', 'Chromium not found')
    const loopbackOnly = policy.networkMode !== 'full'
    // The browser driver is loaded with the first browser, not at start (~1 s of CPU and ~30 MB an idle console does not need).
    const { chromium } = await import('playwright')
    const browser = await chromium.launch({ executablePath, headless: true, args: chromiumArgs({ loopbackOnly }) })
    try {
      const context = await browser.newContext({ viewport: config.viewport ?? { width: 1280, height: 800 }, acceptDownloads: false, serviceWorkers: 'block' })
      return {
        resource: new BrowserSession(browser, context, loopbackOnly, config.maxTextBytes ?? 64 * 1024),
        meta: { executablePath, network: loopbackOnly ? 'loopback only' : 'full' }
      }
    } catch (error) {
      await browser.close()
      throw error
    }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    return (handle.resource as BrowserSession).isHealthy() ? 'ready' : 'unhealthy'
  }

  async release(handle: ResourceHandle): Promise<void> {
    await (handle.resource as BrowserSession).close()
  }

  private versionOf(executable: string): Promise<string | undefined> {
    let load = this.versions.get(executable)
    if (!load) {
      load = cached(300_000, async () => {
        const result = await runBounded({
          argv: [executable, '--version'],
          cwd: '/',
          env: { PATH: systemPath, HOME: '/tmp' },
          timeoutMs: 15_000,
          maxOutputBytes: 1024
        })
        return result.exitCode === 0 ? /[\d.]+/.exec(result.stdout)?.[0] : undefined
      })
      this.versions.set(executable, load)
    }
    return load()
  }
}
