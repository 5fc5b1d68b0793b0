import { posix } from 'node:path'
import { parse as parseYaml } from 'yaml'
import type { CommandPolicyInput } from './command-analysis'
import { decideCommandLine } from './command-rules'
import type { CommandAnalyzer } from './shell'

/**
 * A command line a file write plants where something runs it later, analysed like a `run_command`:
 * where it sits (`scripts.postinstall`, `Makefile recipe of build`, `git hook pre-commit`), the
 * line itself, the commands the shell parser found in it, and the command rules' risk flags.
 */
export type PlantedCommand = {
  where: string
  line: string
  commands: string[][]
  riskFlags: string[]
  /** What the command rules would do with the line typed as a command (under `ask: on_risk`), and the rule that said so. */
  verdict: 'run' | 'ask' | 'blocked'
  rule?: string
}

/** How many planted lines one write reports (a generated Makefile must not flood the item). */
const maxPlanted = 32
/** The longest planted line analysed (characters); a longer one is analysed as cut and says so. */
const maxLineChars = 16 * 1024

/** Shell start-up files: every command in them runs at the next shell. */
const shellStartupFiles = new Set(['.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.zlogout', '.kshrc', '.mkshrc', '.envrc'])
const makefiles = new Set(['makefile', 'gnumakefile'])

/**
 * The command lines a write of `after` over `before` (undefined: a new file) plants where code
 * runs later, new or changed ones only (SPEC §6.1, issue 27): `package.json` scripts (npm runs
 * them on install and test), Makefile recipe lines, git and husky hooks, CI workflow `run:` steps
 * (GitHub Actions, GitLab CI), VS Code tasks, and shell start-up files. Each is parsed by the same
 * shell parser and command rules as a `run_command` (`decideCommandLine` under `ask: on_risk`), so
 * `"postinstall": "curl … | sh"` carries the same flags as typing it. Content that cannot be read
 * as its format (broken JSON or YAML) plants nothing here; the write keeps its `config_write` or
 * `vcs_write` flag, which asks under `on_risk`.
 *
 * Decisions: this reads the file's own format with real parsers (JSON, `yaml`, the bash grammar),
 * never patterns over the text, except Makefiles, whose recipe lines are the tab-led lines by the
 * format's own rule (with `\` continuations); Make's own expansions (`$(VAR)`) are left to the shell
 * parser, which reports what it cannot resolve as a concern.
 */
export function plantedCommands(path: string, before: string | undefined, after: string, analyzer: CommandAnalyzer, policy: Pick<CommandPolicyInput, 'network'>): PlantedCommand[] {
  const lines = plantedLines(path, before, after)
  return lines.slice(0, maxPlanted).map(({ where, line }) => {
    const cut = line.length > maxLineChars ? line.slice(0, maxLineChars) : line
    const decision = decideCommandLine(analyzer.analyze(cut), { ask: 'on_risk', network: policy.network, denylist: [], allowlist: [] })
    return { where, line: cut, commands: decision.commands, riskFlags: decision.riskFlags, verdict: decision.decision, ...(decision.rule ? { rule: decision.rule } : {}) }
  })
}

/** Whether a path is one of the places where a write plants commands (so the write is worth reading before and after). */
export function plantsCommands(path: string): boolean {
  return readerOf(path) !== undefined
}

function readerOf(path: string): Places | undefined {
  const parts = posix.normalize(path.replace(/\\/g, '/')).split('/').filter((part) => part !== '' && part !== '.')
  return placesOf((parts.at(-1) ?? '').toLowerCase(), parts.map((part) => part.toLowerCase()))
}

/** The planted lines of `after` that `before` did not have at the same place. */
function plantedLines(path: string, before: string | undefined, after: string): { where: string; line: string }[] {
  const read = readerOf(path)
  if (!read) return []
  const now = read(after)
  if (!now) return []
  const then = before === undefined ? [] : (read(before) ?? [])
  const known = new Set(then.map((entry) => `${entry.where}\u0000${entry.line}`))
  return now.filter((entry) => entry.line.trim() !== '' && !known.has(`${entry.where}\u0000${entry.line}`))
}

type Places = (text: string) => { where: string; line: string }[] | undefined

function placesOf(name: string, folder: string[]): Places | undefined {
  if (name === 'package.json') return packageScripts
  if (makefiles.has(name) || name.endsWith('.mk')) return makefileRecipes
  if (shellStartupFiles.has(name)) return (text) => [{ where: `shell start-up file ${name}`, line: text }]
  const hooks = folder.lastIndexOf('hooks')
  if ((hooks > 0 && folder[hooks - 1] === '.git') || (folder.includes('.husky') && folder.at(-2) !== '_')) {
    return (text) => [{ where: `git hook ${name}`, line: text }]
  }
  if (/\.ya?ml$/.test(name) && folder.at(-2) === 'workflows' && folder.at(-3) === '.github') return githubSteps
  if (name === '.gitlab-ci.yml') return gitlabScripts
  if (name === 'tasks.json' && folder.at(-2) === '.vscode') return vscodeTasks
  return undefined
}

function packageScripts(text: string): { where: string; line: string }[] | undefined {
  const parsed = jsonOf(text) as { scripts?: unknown } | undefined
  if (!parsed) return undefined
  const scripts = parsed.scripts
  if (typeof scripts !== 'object' || scripts === null) return []
  return Object.entries(scripts).flatMap(([key, value]) => (typeof value === 'string' ? [{ where: `scripts.${key}`, line: value }] : []))
}

function makefileRecipes(text: string): { where: string; line: string }[] {
  const out: { where: string; line: string }[] = []
  let target = '(no target)'
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.replace(/\r$/, '')
    if (!line.startsWith('\t')) {
      const rule = /^([^\s#:=][^:=]*?)\s*::?(?!=)/.exec(line)
      if (rule) target = rule[1]!.trim()
      continue
    }
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)}${lines[++i]!.replace(/\r$/, '').replace(/^\t/, '')}`
    // Make's own prefixes: `@` (silent), `-` (ignore errors), `+` (run under -n too).
    out.push({ where: `Makefile recipe of ${target}`, line: line.slice(1).replace(/^[@+\-\s]+/, '') })
  }
  return out
}

function githubSteps(text: string): { where: string; line: string }[] | undefined {
  const doc = yamlOf(text) as { jobs?: Record<string, { steps?: unknown }> } | undefined
  if (!doc) return undefined
  return Object.entries(doc.jobs ?? {}).flatMap(([job, spec]) =>
    (Array.isArray(spec?.steps) ? spec.steps : []).flatMap((step: unknown, index: number) => {
      const run = (step as { run?: unknown } | null)?.run
      return typeof run === 'string' ? [{ where: `workflow job ${job}, step ${index + 1}`, line: run }] : []
    })
  )
}

function gitlabScripts(text: string): { where: string; line: string }[] | undefined {
  const doc = yamlOf(text) as Record<string, unknown> | undefined
  if (!doc) return undefined
  return Object.entries(doc).flatMap(([job, spec]) =>
    ['before_script', 'script', 'after_script'].flatMap((key) => {
      const value = (spec as Record<string, unknown> | null)?.[key]
      const lines = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((line): line is string => typeof line === 'string') : []
      return lines.map((line) => ({ where: `CI job ${job} (${key})`, line }))
    })
  )
}

function vscodeTasks(text: string): { where: string; line: string }[] | undefined {
  const doc = (jsonOf(text) ?? yamlOf(text)) as { tasks?: unknown } | undefined
  if (!doc) return undefined
  return (Array.isArray(doc.tasks) ? doc.tasks : []).flatMap((task: { label?: unknown; command?: unknown; args?: unknown } | null, index: number) => {
    if (typeof task?.command !== 'string') return []
    const args = Array.isArray(task.args) ? task.args.filter((arg): arg is string => typeof arg === 'string') : []
    return [{ where: `editor task ${typeof task.label === 'string' ? task.label : index + 1}`, line: [task.command, ...args].join(' ') }]
  })
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * YAML as plain data: one document, no custom tags, aliases bounded (a billion-laughs document is
 * refused, not expanded), so what the agent wrote cannot make this read expensive.
 */
function yamlOf(text: string): unknown {
  try {
    const value = parseYaml(text, { maxAliasCount: 100, customTags: [], prettyErrors: false }) as unknown
    return typeof value === 'object' && value !== null ? value : undefined
  } catch {
    return undefined
  }
}
