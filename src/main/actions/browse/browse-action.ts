import { AirlockError } from '@shared/errors'
import { z } from 'zod'
import type { ActionArtifact, ActionContext, ActionOutcome, ActionSpec, ResourceRequirementInput } from '../../core'
import type { BrowserPageVisit, WebBrowser } from '../../core/live-resources/data'
import { writeScreenshot } from './screenshot-artifact'

/** The input of `browse` (SPEC §5.3). Errors name the field. */
export const browseInputSchema = z
  .object({
    url: z
      .string()
      .max(8192, 'is longer than 8192 characters')
      .refine((url) => /^https?:$/.test(parseUrl(url)?.protocol ?? ''), 'must be an absolute http:// or https:// URL')
      .describe('The page to open: an absolute http:// or https:// URL.'),
    action: z.enum(['visit', 'text']).optional().describe("visit (default): the page's text and a screenshot; text: the text only.")
  })
  .strict()

/** A validated `browse` input. */
export type BrowseInput = z.infer<typeof browseInputSchema>

/** What `browse` returns in `data`: the final URL, HTTP status, title and visible text (bounded). */
export type BrowseData = { url: string; status: number | undefined; title: string; text: string; textTruncated: boolean }

/** The session's browser: a `browser` requirement held for the session (one page per session, cookies kept). */
export const browserRequirement: ResourceRequirementInput = { kind: 'browser', resourceKey: 'browser', policy: { networkMode: 'full' } }

/**
 * `browse` (SPEC §5.3): opens an http(s) URL in the session's browser and returns the final URL,
 * status, title and visible text (bounded by the browser's text limit and the agent's output
 * limit), plus a PNG screenshot artifact in the call's execution area (`screenshot-artifact.ts`).
 * Network policy: only an agent whose network is `full` browses; `none` is blocked (rule
 * `network.none`, loopback included: a local server is network too) and so is `proxy` (rule
 * `network.proxy`: the browser does not go through the egress proxy yet). Lineage: the requested
 * origin, the final page's origin, and every origin the session first reached during the call
 * are recorded as `http` endpoints. Calls of one session take turns on its page.
 */
export const browseAction: ActionSpec<typeof browseInputSchema> = {
  name: 'browse',
  description:
    'Open a web page (http or https URL) in a browser and read it. Returns {url, status, title, text, textTruncated}; with action "visit" (default) also a screenshot artifact, with "text" the text only.',
  inputSchema: browseInputSchema,
  effects: 'read',
  summarize: (input) => `${input.action ?? 'visit'} ${parseUrl(input.url)?.origin ?? input.url}`,
  executor: { execute: browse }
}

/** The last visit queued on each session's browser: calls of one session take turns on its page. */
const turns = new WeakMap<object, Promise<void>>()

async function browse(context: ActionContext<BrowseInput>): Promise<ActionOutcome> {
  const { agent, input } = context
  if (agent.profile.network !== 'full') return blockedByNetwork(agent.profile.network)
  const handle = await context.holdForSession(browserRequirement)
  const browser = handle.resource as WebBrowser
  const requested = new URL(input.url).origin
  context.touched({ kind: 'http', endpoint: requested })
  const previous = turns.get(browser) ?? Promise.resolve()
  let done!: () => void
  const finished = new Promise<void>((resolve) => (done = resolve))
  // The next call waits for this one's visit itself, not for this call (which a cancel can end early).
  turns.set(
    browser,
    previous.then(() => finished)
  )
  try {
    await untilAborted(previous, context.signal)
  } catch (error) {
    done()
    throw error
  }
  return visitOnce(context, browser, requested, done)
}

async function visitOnce(context: ActionContext<BrowseInput>, browser: WebBrowser, requested: string, done: () => void): Promise<ActionOutcome> {
  const { agent, input, callId, signal } = context
  const before = new Set(browser.contactedOrigins())
  const recorded = new Set([requested])
  const record = (origin: string | undefined) => {
    if (!origin || origin === 'null' || recorded.has(origin)) return
    recorded.add(origin)
    context.touched({ kind: 'http', endpoint: origin })
  }
  let visit: BrowserPageVisit
  try {
    const work = browser.visit(input.url, { screenshot: input.action !== 'text', timeoutMs: agent.profile.limits.timeoutSeconds * 1000 })
    work.then(done, done)
    visit = await untilAborted(work, signal)
  } catch (error) {
    done()
    return navigationFailure(error, signal)
  } finally {
    for (const origin of browser.contactedOrigins()) if (!before.has(origin)) record(origin)
  }
  // A redirect's target is not among the routed requests: the final page's origin is recorded as well.
  record(parseUrl(visit.url)?.origin)
  const { text, truncated } = bounded(visit.text, agent.profile.limits.outputBytes)
  const artifacts: ActionArtifact[] = visit.screenshot ? [writeScreenshot(agent.workspace, callId, visit.screenshot)] : []
  const diagnostics = [
    ...(visit.status !== undefined && visit.status >= 400 ? [`the page answered HTTP ${visit.status}`] : []),
    ...(visit.textTruncated || truncated
      ? [`the page text was cut at ${Buffer.byteLength(text)} bytes (the browser's text limit or the agent's output limit)`]
      : [])
  ]
  const data: BrowseData = { url: visit.url, status: visit.status, title: visit.title, text, textTruncated: visit.textTruncated || truncated }
  return { data, artifacts, diagnostics, meta: { provider: { providerId: 'browser', network: 'full' } } }
}

function blockedByNetwork(network: 'none' | 'proxy'): ActionOutcome {
  const reason =
    network === 'none'
      ? "the agent's network is none: browse is not allowed (loopback included)"
      : "the agent's network is proxy, and the browser does not go through Airlock's egress proxy yet: browse needs network full"
  const decision = { decision: 'deny', rule: `network.${network}`, reason, riskFlags: ['network'] }
  return { status: 'blocked', meta: { policy: decision }, error: { code: 'policy.blocked', message: `browse is blocked: ${reason}.` } }
}

function navigationFailure(error: unknown, signal: AbortSignal): ActionOutcome {
  if (signal.aborted) throw error
  const name = (error as Error)?.name
  // Playwright's messages carry a multi-line call log; the first line says what happened.
  const message = String((error as Error)?.message ?? error).split('\n')[0]!
  if (error instanceof AirlockError && error.code === 'browser.navigation_blocked') {
    const decision = { decision: 'deny', rule: 'network.policy', reason: message }
    return { status: 'blocked', meta: { policy: decision }, error: { code: 'policy.blocked', message } }
  }
  if (name === 'TimeoutError') return { status: 'timed_out', error: { code: 'browse.timeout', message } }
  return { status: 'error', error: { code: 'browse.navigation_failed', message } }
}

function bounded(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text)
  if (bytes.length <= maxBytes) return { text, truncated: false }
  // Cut on a character boundary: drop a partial UTF-8 sequence at the end.
  return {
    text: bytes
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/\uFFFD$/, ''),
    truncated: true
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort))
  })
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}
