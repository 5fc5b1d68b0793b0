import { allowsUnsafeFallback, type Classification } from '@shared/agents'
import type { ActionAgent } from '../action-runtime/action-spec'
import { highest, type ClassificationLabelSet } from './classification'
import type { CommandAnalysis, CommandDecision } from './command-analysis'
import { decideCommandLine } from './command-rules'
import { fileWriteRisks, isPackageManifest, packageScriptsChange, readSmallFile } from './file-risks'
import { localBinIn } from './local-bins'
import { pathSpellings } from './path-spellings'
import { plantedCommands, plantsCommands, type PlantedCommand } from './planted-commands'
import type { CommandAnalyzer } from './shell'

/**
 * What the policy needs to know about one tool call, read from its validated input: the risk
 * flags, the classification of what it reads (checked against the agent's ceiling), where it
 * sends data (checked against the session's taint), and for `run_command` the command decision.
 *
 * Decisions of note (SPEC §6.1/§6.3 leave them open):
 * - `browse`, `run_code` and MCP tools are not flagged `network` by themselves: the operator gave
 *   the agent those tools and that network. What they send is governed by the write-down rule:
 *   a tainted session asks before it sends to a lower-labelled place. A command is flagged
 *   `network` by the programs it names (curl, git clone, pip install...), when its network is not `none`.
 * - Every execution with a network (`run_command`, `run_code`, `run_skill` under network other than
 *   `none`) is a sink labelled `PUBLIC`: the policy does not know its destination. Under
 *   `network: "proxy"` the egress proxy knows it: each connection is checked against the session's
 *   taint and the domain's label when it is made (`sinkPerConnection`), so such a call is asked
 *   before it runs only when it reads labelled data itself (the proxy sees the session's taint, not
 *   what this call reads). It still counts as a running sink while it runs (a concurrent read of
 *   labelled data asks).
 * - A command reads the labelled paths its words name. A program can read files it does not name
 *   (`grep -r . `): keep data an agent must not carry out of reach of its shell, or give it network `none`.
 */
export type ToolAssessment = {
  riskFlags: string[]
  /** The classification of what the call reads; `PUBLIC` when nothing labelled. */
  reads: Classification
  /** The classification of where the call sends data; undefined when it sends nowhere outside Airlock. */
  sink?: Classification
  /** The sink is the egress proxy, which checks each connection's domain against the session's taint. */
  sinkPerConnection?: true
  /** The command decision of a `run_command` (ask mode applied). */
  command?: CommandDecision
  /** For a file write: the command lines it plants where they run later (package.json scripts, hooks, CI steps…), analysed. */
  planted?: PlantedCommand[]
}

const executing = new Set(['run_command', 'run_code', 'run_skill'])

/** Assesses one call. `input` is the spec's validated input. */
export function assessToolCall(
  tool: string,
  input: unknown,
  agent: ActionAgent,
  labels: ClassificationLabelSet,
  analyzer: CommandAnalyzer,
  recoverable?: (segments: readonly string[], options?: { glob?: boolean }) => boolean
): ToolAssessment {
  const fields = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>
  const text = (key: string) => (typeof fields[key] === 'string' ? (fields[key] as string) : undefined)
  const profile = agent.profile
  const out: ToolAssessment = { riskFlags: [], reads: 'PUBLIC' }
  const levelOf = (path: string, cwd?: string) =>
    labels.empty ? 'PUBLIC' : highest(pathSpellings(path, agent.workspace, cwd).map((spelling) => labels.ofPath(spelling)))
  const treeLevelOf = (path: string) => (labels.empty ? 'PUBLIC' : highest(pathSpellings(path, agent.workspace).map((spelling) => labels.ofTree(spelling))))
  if (executing.has(tool)) {
    if (allowsUnsafeFallback(profile)) out.riskFlags.push('isolation_fallback')
    if (profile.network !== 'none') out.sink = 'PUBLIC'
    if (profile.network === 'proxy') out.sinkPerConnection = true
  }
  switch (tool) {
    case 'run_command': {
      const command = text('command') ?? ''
      const timeoutSeconds = typeof fields.timeoutSeconds === 'number' ? fields.timeoutSeconds : undefined
      const analysis = analyzer.analyze(command)
      out.command = decideCommandLine(analysis, {
        ask: profile.ask,
        network: profile.network,
        denylist: profile.denylist,
        allowlist: profile.allowlist,
        ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
        ...(text('cwd') !== undefined ? { cwd: text('cwd') } : {}),
        localBin: localBinIn(agent.workspace, text('cwd')),
        ...(recoverable ? { recoverable } : {})
      })
      out.riskFlags.push(...out.command.riskFlags)
      if (!labels.empty) out.reads = highest(commandPaths(analysis).map((word) => levelOf(word, text('cwd'))))
      break
    }
    case 'run_code':
      if (fields.dependencies !== undefined) out.riskFlags.push('package_install')
      break
    case 'read_file':
      out.reads = levelOf(text('path') ?? '')
      break
    case 'list_directory':
      out.reads = fields.recursive === true ? treeLevelOf(text('path') ?? '') : levelOf(text('path') ?? '')
      break
    case 'search_files':
      out.reads = treeLevelOf(text('path') ?? '')
      break
    case 'write_file':
    case 'edit_file': {
      // Flags and labels go by every spelling of the path: a link `g -> .git` makes `g/hooks/x` a VCS write.
      const spellings = pathSpellings(text('path') ?? '', agent.workspace)
      const planted = new Map<string, PlantedCommand>()
      for (const path of spellings) {
        out.riskFlags.push(...fileWriteRisks(path))
        const manifest = isPackageManifest(path)
        if (!manifest && !plantsCommands(path)) continue
        // Read once: the scripts check and the planted analysis both compare before with after.
        const before = readSmallFile(agent.workspace, path)
        const after = contentAfter(tool, fields, before)
        // An edit of a file that cannot be read (too big, behind a link, gone): unknown is not "no change".
        if (manifest && (after === undefined || packageScriptsChange(before, after))) out.riskFlags.push('config_write')
        if (after === undefined) out.riskFlags.push('plants_command')
        for (const entry of after === undefined ? [] : plantedCommands(path, before, after, analyzer, { network: profile.network }))
          planted.set(`${entry.where}\u0000${entry.line}`, entry)
      }
      if (planted.size > 0) {
        out.planted = [...planted.values()]
        // What the write plants is flagged as typing it would be; a line the rules would stop or ask about flags the write too.
        out.riskFlags.push(...out.planted.flatMap((entry) => entry.riskFlags))
        if (out.planted.some((entry) => entry.verdict !== 'run')) out.riskFlags.push('plants_command')
      }
      out.reads = highest(spellings.map((path) => labels.ofPath(path)))
      break
    }
    case 'sqlite_query':
      out.reads = labels.ofDatabase(text('database') ?? '')
      break
    case 'browse': {
      const level = labels.ofDomain(hostOf(text('url') ?? ''))
      out.reads = level
      out.sink = level
      break
    }
    default: {
      const separator = tool.indexOf('__')
      if (separator > 0) {
        const level = labels.ofServer(tool.slice(0, separator))
        out.reads = level
        out.sink = level
      }
    }
  }
  out.riskFlags = [...new Set(out.riskFlags)]
  return out
}

/**
 * The classification of what a finished call actually read (what raises the session's taint):
 * for `search_files`, the files it returned matches from; nothing for `write_file`; otherwise what
 * `assessToolCall` saw (an `edit_file` returns a diff of the labelled file).
 */
export function readsOfResult(tool: string, data: unknown, assessed: Classification, labels: ClassificationLabelSet, workspace: string): Classification {
  // Writing a labelled file is an operation on it (the ceiling applies) but reads nothing back.
  if (tool === 'write_file') return 'PUBLIC'
  if (tool !== 'search_files' || typeof data !== 'object' || data === null) return assessed
  const matches = (data as { matches?: { file?: unknown }[] }).matches
  if (!Array.isArray(matches)) return assessed
  const levels = matches.flatMap((match) => (typeof match.file === 'string' ? pathSpellings(match.file, workspace).map((path) => labels.ofPath(path)) : []))
  return highest(levels)
}

/**
 * A file's text after a write or an edit of `current` (an edit applied literally, as edit_file
 * does); undefined for an edit of a file that cannot be read (unknown).
 */
function contentAfter(tool: string, fields: Record<string, unknown>, current: string | undefined): string | undefined {
  if (tool === 'write_file') return typeof fields.content === 'string' ? fields.content : ''
  if (current === undefined) return undefined
  const oldText = typeof fields.oldText === 'string' ? fields.oldText : ''
  const newText = typeof fields.newText === 'string' ? fields.newText : ''
  return fields.replaceAll === true ? current.split(oldText).join(newText) : current.replace(oldText, () => newText)
}

/**
 * Every word of a command line that could name a file it reads: arguments (and the value of a
 * `--option=value`), assignment values and redirection targets, of every simple command found.
 */
function commandPaths(analysis: CommandAnalysis): string[] {
  if (!analysis.ok) return []
  const words: string[] = []
  for (const command of analysis.commands) {
    for (const word of command.argv) {
      words.push(word.value)
      const value = /^--?[A-Za-z0-9-]+=(.+)$/.exec(word.value)?.[1]
      if (value) words.push(value)
    }
    for (const redirect of command.redirects) words.push(redirect.target.value)
    for (const assignment of command.assignments) words.push(assignment.value.value)
  }
  return words.slice(0, 512)
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return ''
  }
}
