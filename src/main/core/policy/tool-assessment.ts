import type { Classification } from '@shared/agents'
import { allowsUnsafeFallback } from '@shared/agents'
import type { ActionAgent } from '../action-runtime/action-spec'
import type { ClassificationLabelSet } from './classification'
import { highest } from './classification'
import type { CommandDecision } from './command-analysis'
import { decideCommandLine } from './command-rules'
import { fileWriteRisks, isPackageManifest, packageScriptsChange, readSmallFile } from './file-risks'
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
 *   `none`) is a sink labelled `PUBLIC`: its destination is unknown until the egress proxy names it.
 * - A command reads the labelled paths its words name. A program can read files it does not name
 *   (`grep -r . `): keep data an agent must not carry out of reach of its shell, or give it network `none`.
 */
export type ToolAssessment = {
  riskFlags: string[]
  /** The classification of what the call reads; `PUBLIC` when nothing labelled. */
  reads: Classification
  /** The classification of where the call sends data; undefined when it sends nowhere outside Airlock. */
  sink?: Classification
  /** The command decision of a `run_command` (ask mode applied). */
  command?: CommandDecision
}

const executing = new Set(['run_command', 'run_code', 'run_skill'])

/** Assesses one call. `input` is the spec's validated input. */
export function assessToolCall(tool: string, input: unknown, agent: ActionAgent, labels: ClassificationLabelSet, analyzer: CommandAnalyzer): ToolAssessment {
  const fields = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>
  const text = (key: string) => (typeof fields[key] === 'string' ? (fields[key] as string) : undefined)
  const profile = agent.profile
  const out: ToolAssessment = { riskFlags: [], reads: 'PUBLIC' }
  if (executing.has(tool)) {
    if (allowsUnsafeFallback(profile)) out.riskFlags.push('isolation_fallback')
    if (profile.network !== 'none') out.sink = 'PUBLIC'
  }
  switch (tool) {
    case 'run_command': {
      const command = text('command') ?? ''
      const timeoutSeconds = typeof fields.timeoutSeconds === 'number' ? fields.timeoutSeconds : undefined
      out.command = decideCommandLine(analyzer.analyze(command), {
        ask: profile.ask,
        network: profile.network,
        denylist: profile.denylist,
        allowlist: profile.allowlist,
        ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
        ...(text('cwd') !== undefined ? { cwd: text('cwd') } : {})
      })
      out.riskFlags.push(...out.command.riskFlags)
      out.reads = labels.empty ? 'PUBLIC' : highest(out.command.commands.flat().map((word) => labels.ofPath(inWorkspace(word, agent.workspace))))
      break
    }
    case 'run_code':
      if (fields.dependencies !== undefined) out.riskFlags.push('package_install')
      break
    case 'read_file':
      out.reads = labels.ofPath(text('path') ?? '')
      break
    case 'list_directory':
      out.reads = fields.recursive === true ? labels.ofTree(text('path') ?? '') : labels.ofPath(text('path') ?? '')
      break
    case 'search_files':
      out.reads = labels.ofTree(text('path') ?? '')
      break
    case 'write_file':
    case 'edit_file': {
      const path = text('path') ?? ''
      out.riskFlags.push(...fileWriteRisks(path))
      if (isPackageManifest(path) && packageScriptsChange(agent.workspace, path, nextContent(tool, fields, agent.workspace, path))) out.riskFlags.push('config_write')
      out.reads = labels.ofPath(path)
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
export function readsOfResult(tool: string, data: unknown, assessed: Classification, labels: ClassificationLabelSet): Classification {
  // Writing a labelled file is an operation on it (the ceiling applies) but reads nothing back.
  if (tool === 'write_file') return 'PUBLIC'
  if (tool !== 'search_files' || typeof data !== 'object' || data === null) return assessed
  const matches = (data as { matches?: { file?: unknown }[] }).matches
  if (!Array.isArray(matches)) return assessed
  return highest(matches.map((match) => (typeof match.file === 'string' ? labels.ofPath(match.file) : 'PUBLIC')))
}

/** The content a write or edit would leave (an edit is applied to the current file, literally). */
function nextContent(tool: string, fields: Record<string, unknown>, workspace: string, path: string): string {
  if (tool === 'write_file') return typeof fields.content === 'string' ? fields.content : ''
  const current = readSmallFile(workspace, path) ?? ''
  const oldText = typeof fields.oldText === 'string' ? fields.oldText : ''
  const newText = typeof fields.newText === 'string' ? fields.newText : ''
  if (oldText === '') return current
  return fields.replaceAll === true ? current.split(oldText).join(newText) : current.replace(oldText, () => newText)
}

/** A command word as a workspace-relative path when it names one inside the workspace. */
function inWorkspace(word: string, workspace: string): string {
  if (word.startsWith(`${workspace}/`)) return word.slice(workspace.length + 1)
  return word
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return ''
  }
}
