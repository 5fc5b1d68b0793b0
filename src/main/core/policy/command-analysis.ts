/**
 * What the command analysis (`./shell/`) makes of one shell command line, and what the command
 * rules (`./command-rules.ts`) decide from it. The analysis works on a real parse tree
 * (tree-sitter-bash), never on the raw text: these types are the whole interface between the two.
 */

/** One word of a command as the shell would pass it, after quotes and escapes are removed. */
export type CommandWord = {
  /**
   * The word's value. For a static word, exactly what the program receives. For a dynamic one,
   * the best reading the analysis has: known variable values substituted (`a=r; b=m; $a$b` gives
   * `rm`), other expansions kept as their source text (`$HOME`, `$(date)`).
   */
  value: string
  /** True when the value is certain: no expansion, substitution or glob whose result is unknown. */
  static: boolean
}

/** A redirection of a simple command (`> file`, `2>> log`, `< input`, `&> out`). */
export type CommandRedirect = {
  /** The operator as written: `>`, `>>`, `<`, `&>`, `&>>`, `>|`, `<>`, `>&`, `<&`. */
  op: string
  /** The file descriptor named before the operator, when one was. */
  fd?: number
  target: CommandWord
  /** True when the redirection writes (`>`, `>>`, `&>`, `>|`, `<>`). */
  writes: boolean
}

/** Where a wrapper (`sudo`, `env X=1`, `sh -c`, `xargs`, `find -exec`...) sat in front of a command. */
export type CommandWrapper = {
  /** The wrapper's own words (`['sudo', '-u', 'bob']`, `['bash', '-lc']`, `['env', 'X=1']`). */
  argv: string[]
}

/** How another command's output reaches this one. */
export type CommandFeed = {
  /** Index (in `CommandAnalysis.commands`) of the command whose output flows here. */
  from: number
  /**
   * `stdin`: through a pipe or `< <(...)`; `argument`: as a word (`$(...)`, backticks, or a
   * process substitution's path `<(...)`); `script`: as the code a shell or `eval` runs
   * (`sh -c "$(curl ...)"`, `bash <(curl ...)`, `curl ... | sh`).
   */
  how: 'stdin' | 'argument' | 'script'
}

/** One simple command that would run, with the wrappers in front of it looked through. */
export type SimpleCommand = {
  /** The effective program and its arguments (`sudo -u x env Y=1 rm -rf /` gives `rm -rf /`). */
  argv: CommandWord[]
  /** Wrappers it was found inside, outermost first. Empty when it ran directly. */
  wrappers: CommandWrapper[]
  /** `VAR=value` prefixes (`FOO=1 make`), and `env`'s assignments. */
  assignments: { name: string; value: CommandWord }[]
  redirects: CommandRedirect[]
  /** Commands whose output flows into this one (pipes, substitutions, `xargs` input). */
  fedBy: CommandFeed[]
  /** True when `xargs` (or similar) appends words read from stdin to `argv`. */
  argsFromStdin: boolean
  /** Set when the command is inside the body of a function of this name. */
  inFunction?: string
  /** True when it runs in the background (`&`) or is one stage of a pipeline of two or more. */
  concurrent: boolean
  /** The text of the command in the line, for the operator (at most 200 characters). */
  text: string
}

/** A reason the analysis could not see everything the line would do. */
export type AnalysisConcern = {
  /**
   * `command.dynamic`: a command name, an `eval` or `sh -c` script, or a shell's stdin is only
   * known at run time; `command.alias`: an alias is defined (it could rename any command);
   * `command.parse_error`: the parser found a syntax error; `command.too_complex`: the line was too
   * big or too deep to finish within the analysis budget.
   */
  rule: 'command.dynamic' | 'command.alias' | 'command.parse_error' | 'command.too_complex'
  reason: string
}

/** The analysis of one command line. */
export type CommandAnalysis =
  | {
      ok: true
      /** Every simple command found, in source order (nested ones after the command they are in). */
      commands: SimpleCommand[]
      /** What could not be seen; the line asks the operator (or is blocked under `ask: never`). */
      concerns: AnalysisConcern[]
    }
  | {
      ok: false
      /**
       * `command.too_long` (over the byte limit), `command.nul_byte`, `command.invalid_text` (U+FFFD or lone
       * UTF-16 surrogates: not what would run), `command.too_complex` (the budget ran out before a tree).
       */
      rule: 'command.too_long' | 'command.nul_byte' | 'command.invalid_text' | 'command.too_complex'
      reason: string
    }

/** The decision for a command line (what `airlock policy check` prints). */
export type CommandDecision = {
  decision: 'run' | 'ask' | 'blocked'
  /** The rule that decided; null when nothing asked or blocked. */
  rule: string | null
  reason: string
  riskFlags: string[]
  /** The effective argv of every simple command, as values. */
  commands: string[][]
  /** Workspace paths (components) whose deletion did not ask because the checkpoint can restore them (flag `recoverable_deletion`). */
  recoverable?: string[][]
}

/** What the command rules need to know about the agent and the call. */
export type CommandPolicyInput = {
  ask: 'always' | 'on_risk' | 'never'
  network: 'none' | 'proxy' | 'full'
  /** The profile's custom denylist (the role's joined in): command prefixes. */
  denylist: readonly string[]
  /** When non-empty, only commands starting with one of these prefixes may run. */
  allowlist: readonly string[]
  /** `run_command`'s `timeoutSeconds` when the call gave one. */
  timeoutSeconds?: number
  /** `run_command`'s `cwd` (relative to the workspace) when the call gave one. */
  cwd?: string
  /**
   * Whether the project has a program of this name in `node_modules/.bin` (so `npx NAME` runs it
   * and fetches nothing). Unset: unknown, and `npx NAME` counts as fetching a package.
   */
  localBin?: (name: string) => boolean
  /**
   * Whether deleting the workspace path (components; [] the whole workspace) could be undone from
   * the agent's checkpoints (issue 28); `glob`: a glob below it may match, so no link may lie below it
   * either (a glob's expansion goes through links). Unset: nothing is recoverable, every deletion outside
   * scratch/ flags `deletion`.
   */
  recoverable?: (segments: readonly string[], options?: { glob?: boolean }) => boolean
}
