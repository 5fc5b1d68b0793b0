import { optionTable, type OptionTable } from './option-parser'

/**
 * How one program reads its arguments: its option table and whether its first operand is a
 * pattern rather than a path (grep, rg) unless an option already gave the pattern.
 */
export type ProgramArguments = { table: OptionTable; patternOperand?: { unless: readonly string[] } }

const common = { flag: '--help --version' }
const followsLinks = 'follows symbolic links, which can lead out of the workspace'
const readsList = (what: string) => `reads ${what} from a file, which the path checks do not cover; pass them as arguments`

// GNU coreutils 9 / grep 3 options (Debian 12), and ripgrep 13-14. Only what inspection needs;
// an option missing here is refused, never guessed at.
const ls = optionTable(common, {
  flag:
    '-a -A -b -B -c -C -d -f -F -g -G -h -i -k -l -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1 ' +
    '--all --almost-all --author --escape --ignore-backups --directory --dired --file-type --full-time ' +
    '--group-directories-first --no-group --human-readable --si --inode --kibibytes --literal --numeric-uid-gid ' +
    '--hide-control-chars --show-control-chars --quote-name --reverse --recursive --size --context --zero',
  text: '-I -T -w --block-size --format --hide --ignore --indicator-style --quoting-style --sort --time --time-style --tabsize --width',
  optional: '--color --colour --classify --hyperlink',
  refused: {
    '-L': followsLinks,
    '--dereference': followsLinks,
    '-H': followsLinks,
    '--dereference-command-line': followsLinks,
    '--dereference-command-line-symlink-to-dir': followsLinks
  }
})

const cat = optionTable(common, {
  flag: '-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting'
})

const head = optionTable(common, {
  flag: '-q -v -z --quiet --silent --verbose --zero-terminated',
  text: '-c -n --bytes --lines',
  numericShort: true
})

// -f keeps the file it opened; following by name re-opens whatever the name leads to later.
const reopens = 're-opens files by name while it runs, long after the path checks'
const tail = optionTable(common, {
  flag: '-f -q -v -z --quiet --silent --verbose --zero-terminated',
  text: '-c -n -s --bytes --lines --sleep-interval --pid --max-unchanged-stats',
  refused: { '-F': reopens, '--follow': reopens, '--retry': reopens },
  numericShort: true
})

const wc = optionTable(common, {
  flag: '-c -m -l -L -w --bytes --chars --lines --max-line-length --words',
  text: '--total',
  refused: { '--files0-from': readsList('the names of the files to count') }
})

const pwd = optionTable(common, { flag: '-L -P --logical --physical' })

const grep = optionTable(common, {
  flag:
    '-E -F -G -P -i -y -v -w -x -c -L -l -o -q -s -b -H -h -n -T -Z -z -a -I -r -U -V ' +
    '--extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case --no-ignore-case --invert-match ' +
    '--word-regexp --line-regexp --count --files-without-match --files-with-matches --only-matching --quiet --silent ' +
    '--no-messages --byte-offset --with-filename --no-filename --line-number --initial-tab --null --null-data --text ' +
    '--recursive --line-buffered --binary',
  text:
    '-e -m -A -B -C -d -D --regexp --max-count --after-context --before-context --context --label --binary-files ' +
    '--devices --directories --include --exclude --exclude-dir',
  optional: '--color --colour',
  refused: {
    '-f': readsList('patterns'),
    '--file': readsList('patterns'),
    '--exclude-from': readsList('exclusion globs'),
    '-R': followsLinks,
    '--dereference-recursive': followsLinks
  },
  numericShort: true
})

const rg = optionTable(common, {
  flag:
    '-i -s -S -w -x -v -F -n -N -l -c -o -H -I -0 -U -P -a -. -u -q -p -b -h -V ' +
    '--ignore-case --case-sensitive --smart-case --word-regexp --line-regexp --invert-match --fixed-strings ' +
    '--line-number --no-line-number --files-with-matches --files-without-match --count --count-matches ' +
    '--only-matching --with-filename --no-filename --heading --no-heading --column --no-column --json --vimgrep ' +
    '--null --multiline --multiline-dotall --pcre2 --text --hidden --no-ignore --no-ignore-vcs --no-ignore-dot ' +
    '--no-ignore-parent --no-ignore-global --no-ignore-exclude --no-ignore-files --unrestricted --files --type-list ' +
    '--quiet --stats --trim --pretty --no-messages --byte-offset --passthru --crlf --no-unicode --one-file-system ' +
    '--line-buffered --block-buffered --binary --include-zero --null-data --max-columns-preview --no-config',
  text:
    '-e -g -t -T -A -B -C -m -d -M -r -j -E --regexp --glob --iglob --type --type-not --type-add --type-clear ' +
    '--after-context --before-context --context --max-count --max-depth --maxdepth --max-filesize --max-columns ' +
    '--replace --color --colors --sort --sortr --threads --path-separator --context-separator ' +
    '--field-match-separator --field-context-separator --encoding --engine --regex-size-limit --dfa-size-limit',
  refused: {
    '--pre': 'runs a preprocessor program on every file',
    '--pre-glob': 'selects files for a preprocessor program',
    '-z': 'runs decompression programs',
    '--search-zip': 'runs decompression programs',
    '--hostname-bin': 'runs a program',
    '-L': followsLinks,
    '--follow': followsLinks,
    '-f': readsList('patterns'),
    '--file': readsList('patterns'),
    '--ignore-file': readsList('ignore globs')
  }
})

/** Option tables of the default allowlist's programs other than find and git (which have their own grammar). */
export const programArguments: Readonly<Record<string, ProgramArguments>> = {
  ls: { table: ls },
  cat: { table: cat },
  head: { table: head },
  tail: { table: tail },
  wc: { table: wc },
  pwd: { table: pwd },
  grep: { table: grep, patternOperand: { unless: ['-e', '--regexp'] } },
  rg: { table: rg, patternOperand: { unless: ['-e', '--regexp', '--files', '--type-list'] } }
}
