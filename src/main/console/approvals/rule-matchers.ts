import { posix } from 'node:path'
import { ruleMatcherSchema, type ApprovalKind, type RuleMatcher } from '@shared/approvals'
import { canonicalJson, redacted, type CommandAnalyzer, type SimpleCommand } from '../../core'

/**
 * What a remembered rule may match in a request: the facts the dispatcher handed the queue (the
 * validated input with secrets redacted, the commands as the policy parsed them, whether it saw the
 * whole line, the policy rule that asked and the risk flags). Never the summary or other free text.
 */
export type RequestFacts = {
  tool: string
  kind: ApprovalKind
  agentId: string | null
  input: unknown
  commands: readonly (readonly string[])[]
  analysed: boolean
  policyRule: string | null
  riskFlags: readonly string[]
}

/** The tools whose input is code to run: a `tool` rule covers them only with an exact input (`args`). */
const executing = new Set(['run_code', 'run_skill'])

/** What a file tool writes is matched by `path` rules; these are the tools a path rule names. */
const fileTools = new Set(['write_file', 'edit_file'])

/** The most input a proposed `tool` rule pins down (canonical JSON characters): bigger calls are approved once. */
const maxProposedArgs = 16 * 1024

/**
 * Why no rule may answer this request (it always reaches the operator), or undefined when one may:
 * write-downs and reads above the ceiling (`classification.*`), command lines the policy could not
 * fully see (`command.*`), resource requirements and skills are the operator's every time.
 */
export function notRememberable(facts: RequestFacts): string | undefined {
  if (facts.kind !== 'action' && facts.kind !== 'network') return `a ${facts.kind.replace('_', '-')} request is decided by the operator every time`
  if (facts.agentId === null) return 'a request without an agent is decided by the operator every time'
  if (facts.policyRule?.startsWith('classification.')) return 'a write-down or a read above the ceiling is decided by the operator every time'
  if (facts.policyRule?.startsWith('command.')) return 'a command line Airlock could not fully analyse is decided by the operator every time'
  return undefined
}

/**
 * Whether a matcher covers a request. The caller checked scope, expiry, risk flags and
 * `notRememberable`. A command matcher covers the line's simple commands in order, one entry
 * each; a tool matcher with `args` covers an input with exactly those top-level fields and values
 * (no field more), one without `args` every call of the tool but code (see `ruleMatcherSchema`).
 */
export function matcherCovers(matcher: RuleMatcher, facts: RequestFacts, analyzer: CommandAnalyzer | undefined): boolean {
  switch (matcher.kind) {
    case 'command': {
      // In order, one entry per command: `ls; export PATH=.` is not `export PATH=.; ls` (which runs ./ls).
      const argvs = analyzer ? plainCommands(facts, analyzer) : undefined
      return argvs !== undefined && argvs.length === matcher.commands.length && argvs.every((argv, index) => commandEntryCovers(matcher.commands[index]!, argv))
    }
    case 'path': {
      const path = filePath(facts)
      return path !== undefined && (matcher.tools as string[]).includes(facts.tool) && withinSubtree(path, matcher.subtree)
    }
    case 'domain': {
      const endpoint = endpointOf(facts)
      if (!endpoint) return false
      const hostMatches = matcher.host.startsWith('*.')
        ? endpoint.host.endsWith(matcher.host.slice(1)) && endpoint.host.length > matcher.host.length - 1
        : endpoint.host === matcher.host
      return hostMatches && (matcher.port === undefined || matcher.port === endpoint.port)
    }
    case 'tool': {
      if (facts.tool !== matcher.tool || facts.tool === 'run_command') return false
      if (matcher.args === undefined) return !executing.has(facts.tool)
      const input = facts.input as Record<string, unknown>
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return false
      // Exactly the approved fields: one the approved call did not have (run_code's `args`) is not free.
      const fields = Object.keys(input).filter((key) => input[key] !== undefined)
      const args = Object.entries(matcher.args)
      return (
        fields.length === args.length &&
        args.every(([key, value]) => Object.hasOwn(input, key) && !hidden(input[key]) && canonicalJson(input[key]) === canonicalJson(value))
      )
    }
  }
}

/**
 * The rule this request would become when approved for the session or as a rule: the narrowest
 * matcher that covers it (every command in order; a tool's whole input as `args`), or null.
 */
export function proposeMatcher(facts: RequestFacts, analyzer: CommandAnalyzer | undefined): RuleMatcher | null {
  if (notRememberable(facts) !== undefined) return null
  let matcher: unknown
  if (facts.tool === 'run_command') {
    const argvs = analyzer ? plainCommands(facts, analyzer) : undefined
    if (!argvs) return null
    matcher = { kind: 'command', commands: argvs.map((argv) => ({ prefix: argv })) }
  } else if (fileTools.has(facts.tool)) {
    const path = filePath(facts)
    matcher = path === undefined ? undefined : { kind: 'path', subtree: path, tools: [facts.tool] }
  } else if (facts.tool === 'browse' || facts.kind === 'network') {
    const endpoint = endpointOf(facts)
    matcher = endpoint ? { kind: 'domain', host: endpoint.host, ...(endpoint.explicitPort ? { port: endpoint.port } : {}) } : undefined
  } else {
    const input = facts.input
    if (typeof input !== 'object' || input === null || Array.isArray(input) || hidden(input) || canonicalJson(input).length > maxProposedArgs) return null
    // Always `args`, even `{}`: a matcher without it covers every call of the tool, which only an operator's edit makes.
    matcher = { kind: 'tool', tool: facts.tool, args: input }
  }
  const parsed = ruleMatcherSchema.safeParse(matcher)
  return parsed.success && matcherCovers(parsed.data, facts, analyzer) ? parsed.data : null
}

/** One line for people: what a matcher covers. */
export function describeMatcher(matcher: RuleMatcher): string {
  const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text)
  switch (matcher.kind) {
    case 'command':
      return cut(`run_command: ${matcher.commands.map((entry) => [...entry.prefix, ...(entry.args ? [entry.args] : [])].join(' ')).join(' ; ')}`)
    case 'path':
      return cut(`${matcher.tools.join(', ')} ${matcher.subtree === '.' ? 'anywhere in the workspace' : `in ${matcher.subtree}`}`)
    case 'domain':
      return cut(`network to ${matcher.host}${matcher.port ? `:${matcher.port}` : ''}`)
    case 'tool':
      if (matcher.args === undefined) return cut(`${matcher.tool} (any input)`)
      if (Object.keys(matcher.args).length === 0) return cut(`${matcher.tool} with no input`)
      return cut(
        `${matcher.tool} with exactly ${Object.entries(matcher.args)
          .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
          .join(', ')}`
      )
  }
}

/**
 * The argv of every simple command of a `run_command` line, when a rule may cover the line: the
 * policy saw it whole (`analysed`, no concern), and every simple command is plain — it runs
 * directly (no wrapper such as `sudo`, `env`, `sh -c`, no `VAR=` prefix, not in a function, not in
 * the background), every word is static (no expansion whose value is unknown), it reads no words from stdin, and it has no
 * redirection but a descriptor copy (`2>&1`). The line is analysed again here with the same
 * parser (the request carries only argv), and must give exactly the commands the policy reported;
 * any difference, or a redacted part, and no rule covers it.
 */
function plainCommands(facts: RequestFacts, analyzer: CommandAnalyzer): string[][] | undefined {
  if (facts.tool !== 'run_command' || !facts.analysed) return undefined
  const line = (facts.input as { command?: unknown } | null)?.command
  if (typeof line !== 'string' || hidden(line)) return undefined
  const analysis = analyzer.analyze(line)
  if (!analysis.ok || analysis.concerns.length > 0 || analysis.commands.length === 0) return undefined
  if (!analysis.commands.every((command, index) => plain(command) && !backgrounded(command, index, analysis.commands))) return undefined
  const argvs = analysis.commands.map((command) => command.argv.map((word) => word.value))
  return canonicalJson(argvs) === canonicalJson(facts.commands) ? argvs : undefined
}

function plain(command: SimpleCommand): boolean {
  return (
    command.argv.length > 0 &&
    command.wrappers.length === 0 &&
    command.assignments.length === 0 &&
    command.inFunction === undefined &&
    !command.argsFromStdin &&
    command.argv.every((word) => word.static) &&
    command.fedBy.every((feed) => feed.how === 'stdin') &&
    command.redirects.every(
      (redirect) => !redirect.writes && (redirect.op === '>&' || redirect.op === '<&') && redirect.target.static && /^(\d|-)$/.test(redirect.target.value)
    )
  )
}

/**
 * A command run in the background (`&`) can outlive the call: not what the operator approved. The
 * analysis marks background and pipeline stages alike (`concurrent`); a stage reads or feeds a pipe.
 */
function backgrounded(command: SimpleCommand, index: number, commands: readonly SimpleCommand[]): boolean {
  if (!command.concurrent) return false
  const piped =
    command.fedBy.some((feed) => feed.how === 'stdin') || commands.some((other) => other.fedBy.some((feed) => feed.from === index && feed.how === 'stdin'))
  return !piped
}

function commandEntryCovers(entry: { prefix: string[]; args?: string }, argv: readonly string[]): boolean {
  if (argv.length < entry.prefix.length || entry.prefix.some((word, index) => argv[index] !== word)) return false
  const rest = argv.slice(entry.prefix.length).join(' ')
  return entry.args === undefined ? rest === '' : globPattern(entry.args).test(rest)
}

/** A glob over text: `*` any run of characters, `?` one; everything else literal. */
function globPattern(glob: string): RegExp {
  const source = [...glob].map((char) => (char === '*' ? '[\\s\\S]*' : char === '?' ? '[\\s\\S]' : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('')
  return new RegExp(`^${source}$`, 'u')
}

/** The workspace-relative path a file tool writes, normalised; undefined when it is not a plain relative path. */
function filePath(facts: RequestFacts): string | undefined {
  if (!fileTools.has(facts.tool)) return undefined
  const path = (facts.input as { path?: unknown } | null)?.path
  if (typeof path !== 'string' || path === '' || path.includes('\0') || hidden(path)) return undefined
  const normal = posix.normalize(path).replace(/\/+$/, '')
  if (normal.startsWith('/') || normal === '..' || normal.startsWith('../') || normal === '.') return undefined
  return normal
}

function withinSubtree(path: string, subtree: string): boolean {
  const root = posix.normalize(subtree).replace(/\/+$/, '')
  if (root === '.') return true
  return path === root || path.startsWith(`${root}/`)
}

/** The host and port a request connects to: `browse`'s URL, or a network request's `{host, port}`. */
function endpointOf(facts: RequestFacts): { host: string; port: number; explicitPort: boolean } | undefined {
  const input = facts.input as { url?: unknown; host?: unknown; port?: unknown } | null
  if (facts.tool === 'browse' && typeof input?.url === 'string' && !hidden(input.url)) {
    let url: URL
    try {
      url = new URL(input.url)
    } catch {
      return undefined
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    return { host: url.hostname.toLowerCase(), port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80, explicitPort: url.port !== '' }
  }
  if (facts.kind === 'network' && typeof input?.host === 'string' && typeof input.port === 'number' && !hidden(input.host)) {
    return { host: input.host.toLowerCase(), port: input.port, explicitPort: true }
  }
  return undefined
}

/** True when a value holds redacted or cut parts: two different secrets look the same there, so no rule pins it. */
function hidden(value: unknown): boolean {
  const text = typeof value === 'string' ? value : canonicalJson(value)
  return text === undefined || text.includes(redacted) || text.includes('[…]') || /… \(\d+ characters in all\)/.test(text)
}
