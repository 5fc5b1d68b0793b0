import { posix } from 'node:path'
import { createRequire } from 'node:module'
import type * as Yaml from 'yaml'
import { shellStartupFiles } from '@shared/protected-paths'
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
/** The longest planted line analysed (characters); a longer one is not analysed and asks. */
const maxLineChars = 16 * 1024
/** The largest file analysed (characters, as `readSmallFile` reads); a larger one is not parsed and asks. */
const maxContentChars = 1024 * 1024

/** Shell start-up files and `.envrc` (direnv): every command in them runs at the next shell. */
const startupFiles = new Set([...shellStartupFiles, '.envrc'])
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
export function plantedCommands(
  path: string,
  before: string | undefined,
  after: string,
  analyzer: CommandAnalyzer,
  policy: Pick<CommandPolicyInput, 'network'>
): PlantedCommand[] {
  if (after.length > maxContentChars) return [unanalysed('the whole file', `${after.length} characters: too large to analyse`)]
  const read = plantedLines(path, before && before.length <= maxContentChars ? before : undefined, after)
  if ('unreadable' in read) return [unanalysed('the whole file', read.unreadable)]
  const analysed = read.lines.slice(0, maxPlanted).map(({ where, line, doubt }): PlantedCommand => {
    if (doubt) return unanalysed(where, doubt, line)
    if (line.length > maxLineChars) return unanalysed(where, `${line.length} characters: too long to analyse`, line)
    const decision = decideCommandLine(analyzer.analyze(line), { ask: 'on_risk', network: policy.network, denylist: [], allowlist: [] })
    return {
      where,
      line,
      commands: decision.commands,
      riskFlags: decision.riskFlags,
      verdict: decision.decision,
      ...(decision.rule ? { rule: decision.rule } : {})
    }
  })
  const left = read.lines.length - analysed.length
  return left > 0 ? [...analysed, unanalysed('the rest of the file', `${left} more planted ${left === 1 ? 'line was' : 'lines were'} not analysed`)] : analysed
}

/**
 * A planted place the analysis cannot vouch for (too large, cut, not readable as its format, a
 * construct it does not follow): it counts as a line the rules would ask about, so the write is
 * flagged `plants_command` and the operator sees why. Fail closed: unknown is never harmless.
 */
function unanalysed(where: string, why: string, line = ''): PlantedCommand {
  const shown = line.length > 2048 ? `${line.slice(0, 2048)}…` : line
  return { where, line: shown === '' ? `(${why})` : shown, commands: [], riskFlags: [], verdict: 'ask', rule: `planted.not_analysed: ${why}` }
}

/** Whether a path is one of the places where a write plants commands (so the write is worth reading before and after). */
export function plantsCommands(path: string): boolean {
  return readerOf(path) !== undefined
}

function readerOf(path: string): Places | undefined {
  const parts = posix
    .normalize(path.replace(/\\/g, '/'))
    .split('/')
    .filter((part) => part !== '' && part !== '.')
  return placesOf(
    (parts.at(-1) ?? '').toLowerCase(),
    parts.map((part) => part.toLowerCase())
  )
}

/** The planted lines of `after` that `before` did not have at the same place, or why `after` cannot be read. */
function plantedLines(path: string, before: string | undefined, after: string): { lines: Planted[] } | { unreadable: string } {
  const read = readerOf(path)
  if (!read) return { lines: [] }
  const now = read(after)
  if (!now) return { unreadable: 'not readable as its format' }
  const then = before === undefined ? [] : (read(before) ?? [])
  const known = new Set(then.map((entry) => `${entry.where}\u0000${entry.line}`))
  return { lines: now.filter((entry) => entry.line.trim() !== '' && !known.has(`${entry.where}\u0000${entry.line}`)) }
}

/** One planted place: where, the line, and why it cannot be analysed when it cannot (`doubt`). */
type Planted = { where: string; line: string; doubt?: string }

type Places = (text: string) => Planted[] | undefined

function placesOf(name: string, folder: string[]): Places | undefined {
  if (name === 'package.json') return packageScripts
  if (makefiles.has(name) || name.endsWith('.mk')) return makefileRecipes
  if (startupFiles.has(name)) return (text) => [{ where: `shell start-up file ${name}`, line: text }]
  const hooks = folder.lastIndexOf('hooks')
  if ((hooks > 0 && folder.slice(0, hooks).includes('.git')) || (folder.includes('.husky') && folder.at(-2) !== '_')) return (text) => [hookScript(name, text)]
  if (/\.ya?ml$/.test(name) && folder.at(-2) === 'workflows' && folder.at(-3) === '.github') return githubSteps
  if (name === '.gitlab-ci.yml') return gitlabScripts
  if (name === 'tasks.json' && folder.at(-2) === '.vscode') return vscodeTasks
  return undefined
}

/** A hook runs as its shebang says: a shell script is analysed whole; any other interpreter is not followed. */
function hookScript(name: string, text: string): Planted {
  const shebang = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(withoutBom(text))
  const program = shebang ? (shebang[1]!.endsWith('/env') ? (shebang[2] ?? '') : shebang[1]!).split('/').at(-1)! : 'sh'
  const where = `git hook ${name}`
  return ['sh', 'bash', 'dash', 'zsh', 'ksh'].includes(program)
    ? { where, line: text }
    : { where, line: text, doubt: `runs under ${program}, which the shell analysis does not follow` }
}

function packageScripts(text: string): Planted[] | undefined {
  const parsed = jsonOf(text) as { scripts?: unknown } | undefined
  if (!parsed) return undefined
  const scripts = parsed.scripts
  if (typeof scripts !== 'object' || scripts === null) return []
  return Object.entries(scripts).flatMap(([key, value]) => (typeof value === 'string' ? [{ where: `scripts.${key}`, line: value }] : []))
}

/**
 * Recipe lines by Make's rules: tab-led lines under a rule, `\` continuations joined, and a recipe
 * after `;` on the rule line. What Make runs that this does not follow — `$(shell …)` and
 * `!=` assignments (run while the Makefile is read), `include`, `.RECIPEPREFIX` — is planted as
 * not analysed, so the write asks.
 */
function makefileRecipes(text: string): Planted[] {
  const out: Planted[] = []
  let target = '(no target)'
  const lines = withoutBom(text).split('\n')
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.replace(/\r$/, '')
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)}${lines[++i]!.replace(/\r$/, '').replace(/^\t/, '')}`
    if (line.startsWith('\t')) {
      // Make's own prefixes: `@` (silent), `-` (ignore errors), `+` (run under -n too).
      out.push({ where: `Makefile recipe of ${target}`, line: line.slice(1).replace(/^[@+\-\s]+/, '') })
      continue
    }
    const trimmed = line.trimStart()
    if (/\$[({]shell[\s)}]|!=|^-?s?include\s|^\.RECIPEPREFIX/.test(trimmed)) {
      out.push({
        where: 'Makefile (run or read by make itself)',
        line: trimmed,
        doubt: 'Make runs or reads this itself ($(shell), !=, include, .RECIPEPREFIX)'
      })
      continue
    }
    if (trimmed === '' || trimmed.startsWith('#')) continue
    // A rule line: `targets: prerequisites [; recipe]` (not `:=`, `::=` assignments).
    const colon = line.indexOf(':')
    if (colon <= 0 || line[colon + 1] === '=' || (line[colon + 1] === ':' && line[colon + 2] === '=') || /[=]/.test(line.slice(0, colon))) continue
    target = line.slice(0, colon).trim()
    const semicolon = line.indexOf(';', colon)
    if (semicolon > 0) out.push({ where: `Makefile recipe of ${target}`, line: line.slice(semicolon + 1).trim() })
  }
  return out
}

function githubSteps(text: string): Planted[] | undefined {
  const doc = yamlOf(text) as
    | { defaults?: { run?: { shell?: unknown } }; jobs?: Record<string, { steps?: unknown; defaults?: { run?: { shell?: unknown } } }> }
    | undefined
  if (!doc) return undefined
  const shellOf = (...shells: unknown[]) => shells.find((shell) => typeof shell === 'string') as string | undefined
  return Object.entries(doc.jobs ?? {}).flatMap(([job, spec]) =>
    (Array.isArray(spec?.steps) ? spec.steps : []).flatMap((step: unknown, index: number) => {
      const { run, shell } = (step ?? {}) as { run?: unknown; shell?: unknown }
      if (typeof run !== 'string') return []
      const where = `workflow job ${job}, step ${index + 1}`
      const runner = shellOf(shell, spec?.defaults?.run?.shell, doc.defaults?.run?.shell)
      return [
        runner === undefined || /^(bash|sh)\b/.test(runner)
          ? { where, line: run }
          : { where, line: run, doubt: `runs under shell: ${runner}, which the shell analysis does not follow` }
      ]
    })
  )
}

function gitlabScripts(text: string): Planted[] | undefined {
  const doc = yamlOf(text) as Record<string, unknown> | undefined
  if (!doc) return undefined
  return Object.entries(doc).flatMap(([job, spec]) =>
    ['before_script', 'script', 'after_script'].flatMap((key) => {
      const value = (spec as Record<string, unknown> | null)?.[key]
      // GitLab flattens nested script arrays.
      const lines = typeof value === 'string' ? [value] : Array.isArray(value) ? value.flat(8).filter((line): line is string => typeof line === 'string') : []
      return lines.map((line) => ({ where: `CI job ${job} (${key})`, line }))
    })
  )
}

function vscodeTasks(text: string): Planted[] | undefined {
  const doc = (jsonOf(text) ?? yamlOf(text)) as { tasks?: unknown } | undefined
  if (!doc) return undefined
  return (Array.isArray(doc.tasks) ? doc.tasks : []).flatMap((task: Record<string, unknown> | null, index: number) => {
    const where = `editor task ${typeof task?.label === 'string' ? task.label : index + 1}`
    const overrides = ['windows', 'linux', 'osx']
      .map((os) => (task?.[os] as Record<string, unknown> | undefined)?.command)
      .filter((command) => command !== undefined)
    if (typeof task?.command !== 'string' && overrides.length === 0) return []
    // Arguments are quoted for the shell as VS Code passes them; OS overrides and non-shell task types are not followed.
    const args = Array.isArray(task?.args) ? task.args.map((arg) => (typeof arg === 'string' ? shellQuote(arg) : '')) : []
    const line = [typeof task?.command === 'string' ? task.command : '', ...args].join(' ').trim()
    if (overrides.length > 0) return [{ where, line, doubt: 'has per-OS commands (windows, linux, osx), which are not followed' }]
    return [task?.type === 'process' ? { where, line, doubt: 'is a process task (run without a shell), which is not followed' } : { where, line }]
  })
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}

/** Text without a leading byte-order mark (npm, Make and editors read past it). */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(withoutBom(text)) as unknown
  } catch {
    return undefined
  }
}

/**
 * The YAML parser, loaded the first time a CI file is written: ~40 ms of every process start
 * otherwise (the CLI's `policy check`, an idle console), for files few calls touch. Resolved from
 * `__filename`, not `import.meta`: see shell/analyzer.ts.
 */
let yaml: typeof Yaml | undefined
function loadYaml(): typeof Yaml {
  yaml ??= createRequire(__filename)('yaml') as typeof Yaml
  return yaml
}

/**
 * YAML as plain data: one document, no custom tags, aliases bounded (a billion-laughs document is
 * refused, not expanded), so what the agent wrote cannot make this read expensive.
 */
function yamlOf(text: string): unknown {
  // CI files are small; a large one is not parsed on the host's event loop (it asks instead).
  if (text.length > 256 * 1024) return undefined
  try {
    // Merge keys on and duplicate keys allowed, as CI runners read them (the last one wins).
    const value = loadYaml().parse(withoutBom(text), { maxAliasCount: 100, customTags: [], prettyErrors: false, merge: true, uniqueKeys: false }) as unknown
    return typeof value === 'object' && value !== null ? value : undefined
  } catch {
    return undefined
  }
}
