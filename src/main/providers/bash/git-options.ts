import { optionTable, type OptionTableSpec, type OptionTable } from './option-parser'

// git 2.3x options of the read-only subcommands. git's revision and diff parsers take one short
// option per argument (no clusters), required values glued or separate, optional values glued.

const runsProgram = 'makes git run a program'
const submodules = 'the host runner does not descend into submodules (their repositories are not checked)'

/** Diff options shared by status-free subcommands (diff, log, show). */
const diffOptions: OptionTableSpec = {
  flag:
    '-p -u -s -R -a -b -w -W -z -D --patch --no-patch --raw --patch-with-raw --patch-with-stat --numstat --shortstat ' +
    '--summary --compact-summary --name-only --name-status --minimal --patience --histogram --full-index --binary ' +
    '--ignore-space-at-eol --ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-cr-at-eol ' +
    '--function-context --exit-code --quiet --no-renames --check --text --no-color --no-prefix --indent-heuristic ' +
    '--no-indent-heuristic --find-copies-harder --irreversible-delete --pickaxe-all --pickaxe-regex --no-color-moved ' +
    '--no-color-moved-ws --ita-invisible-in-index --no-ext-diff --no-textconv --no-relative',
  text:
    '-U -I -S -G -l --unified --diff-algorithm --diff-filter --src-prefix --dst-prefix --line-prefix --anchored ' +
    '--ignore-matching-lines --inter-hunk-context --word-diff-regex --output-indicator-new --output-indicator-old ' +
    '--output-indicator-context --skip-to --rotate-to --find-object --stat-width --stat-name-width --stat-count ' +
    '--stat-graph-width --ws-error-highlight',
  optional:
    '-M -C -B --stat --dirstat --color --color-moved --color-moved-ws --word-diff --color-words --abbrev ' +
    '--find-renames --find-copies --break-rewrites --relative',
  refused: {
    '--ext-diff': runsProgram,
    '--textconv': runsProgram,
    '--output': 'writes a file',
    '-O': 'reads an order file, which the path checks do not cover',
    '--no-index': 'compares arbitrary files instead of the repository',
    '--submodule': submodules,
    '--ignore-submodules': submodules
  },
  clusters: false
}

/** Revision-walking options of log and show. */
const revisionOptions: OptionTableSpec = {
  flag:
    '-i -E -F -P -m -c -g --all --not --merges --no-merges --first-parent --reverse --date-order --author-date-order ' +
    '--topo-order --graph --oneline --no-decorate --abbrev-commit --no-abbrev-commit --relative-date --parents ' +
    '--children --left-right --cherry-pick --cherry-mark --cherry --boundary --follow --full-diff --source --use-mailmap ' +
    '--mailmap --no-mailmap --do-walk --simplify-by-decoration --ancestry-path --full-history --dense --sparse ' +
    '--show-pulls --log-size --all-match --invert-grep --regexp-ignore-case --extended-regexp --fixed-strings ' +
    '--perl-regexp --walk-reflogs --remove-empty --cc --combined-all-paths --no-notes --no-expand-tabs --single-worktree',
  text:
    '-n --max-count --skip --since --after --until --before --author --committer --grep --min-parents --max-parents ' +
    '--date --format --encoding --exclude --diff-merges --glob',
  optional: '--branches --tags --remotes --decorate --pretty --notes --expand-tabs --no-walk',
  refused: {
    '--show-signature': 'verifies signatures by running gpg',
    '-L': 'line-range logs are not supported on the host runner'
  },
  numericShort: true,
  clusters: false
}

/** Option tables of the git subcommands the host runner can run. */
export const gitSubcommandOptions: Readonly<Record<string, OptionTable>> = {
  status: optionTable({
    flag: '-s -b -v -z --short --branch --show-stash --long --verbose --no-column --ahead-behind --no-ahead-behind --renames --no-renames --null',
    optional: '-u --porcelain --untracked-files --ignored --column --find-renames',
    refused: { '--ignore-submodules': submodules },
    clusters: false
  }),
  diff: optionTable(diffOptions, { flag: '--cached --staged --merge-base' }),
  log: optionTable(diffOptions, revisionOptions),
  show: optionTable(diffOptions, revisionOptions)
}

/** Arguments the runner puts before the caller's, per subcommand, so no program runs and no submodule is entered. */
export const gitSubcommandSafety: Readonly<Record<string, readonly string[]>> = {
  status: ['--ignore-submodules=all'],
  diff: ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all'],
  log: ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all'],
  show: ['--no-ext-diff', '--no-textconv', '--ignore-submodules=all']
}
