import type { CommandPolicyInput, CommandWord } from './command-analysis'
import { familyHit, type RuleHit } from './command-rules-deny'
import { canonical, listReadings } from './command-rules-readings'
import { baseName, shown, splitArgs, viewOf, type CommandView, type Folder } from './command-rules-words'

/**
 * What the command policy cannot follow fails toward asking (README "Policy"). Two rules here,
 * both decided on the analysis' words, after the deny families and the profile's lists:
 *
 * - **Carried commands** (`command.carried`), table-free: a program can run the rest of its argv
 *   (`setarch x86_64 git push`, `ssh-agent rm -rf ~`, any wrapper no table lists). For every
 *   simple command, each suffix argv[i..] (i ≥ 1) that starts with a word shaped like a program
 *   name is read as a command of its own; when one would hit a deny family or the profile's
 *   denylist, the line asks (blocked under `ask: never`), naming the carried command. Under
 *   `on_risk` its risk flags (a deletion, an install) count for the line too. Not read as
 *   carriers: programs whose operands are data (`dataPrograms`: `echo`, `grep`, `ls`, `git`, …; their
 *   code-running options are read by the analysis itself), and the subcommand word of tools whose
 *   first operand is a subcommand (`npm rm x` is not `rm x`). One argument holding a command line
 *   (`nix-shell --run 'git push'`, `--cmd='rm -rf ~'`) is read too, split at blanks, for the deny
 *   families and the denylist only (text such as a title is not taken for a deletion).
 * - **Words only known at run time** (`command.dynamic`): a word whose value the analysis could
 *   not follow (a loop variable, `$1`, `$@`, `read`/`printf -v` targets, `$(…)`, a glob) matters
 *   only when it could complete a denied command: when the known words before it are a proper
 *   prefix of a denylist entry (`git $x` vs "git push"), or when it is a path operand of a
 *   deleting program that, were it `/` or empty, would delete the filesystem root or the home
 *   folder (`rm -rf $a`). In command position it already asks (`command.dynamic` of the
 *   analysis). Elsewhere (`echo $HOME`, `ls "$d"`, `python3 "$f"`) it changes nothing.
 *
 * Programs renamed earlier in the same line (`linkedReadings`): `ln -s /usr/bin/git g; ./g push`
 * runs git, which dispatches on its arguments, not its name. A command whose program path is the
 * destination of an earlier `ln`, `cp`, `install` or `mv` in the line (`g`, `./g`, `bin/g` spelled
 * as the line spelled it, chains followed) is read a second time as the source program, and that
 * reading goes through the deny families and the profile's lists like the line's own commands
 * (`./g push` is `git push`: `denylist.custom`). When the source is only known at run time
 * (`ln -s "$(which git)" g; ./g push`), the command asks (`command.dynamic`, `linkedHit`) if its
 * arguments are the rest of a denylist entry (`push` of "git push"). A program made in an earlier line is out of reach
 * of a line-by-line policy; the sandbox is what contains it.
 */

/** Programs whose operands are data, never a command they run. */
const dataPrograms = new Set([
  'echo',
  'printf',
  'cat',
  'tac',
  'less',
  'more',
  'head',
  'tail',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ag',
  'ack',
  'wc',
  'sort',
  'uniq',
  'cut',
  'tr',
  'ls',
  'dir',
  'stat',
  'file',
  'which',
  'type',
  'whereis',
  'whatis',
  'apropos',
  'man',
  'info',
  'help',
  'test',
  '[',
  '[[',
  'touch',
  'mkdir',
  'cp',
  'mv',
  'ln',
  'diff',
  'cmp',
  'comm',
  'jq',
  'yq',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'git',
  'tee',
  'base64',
  'sha256sum',
  'sha1sum',
  'md5sum',
  'true',
  'false',
  ':',
  'export',
  'declare',
  'local',
  'readonly',
  'typeset',
  'unset',
  'alias',
  'unalias',
  'hash',
  'read',
  'set',
  'shift',
  'cd',
  'pushd',
  'popd',
  'pwd',
  'history',
  'kill',
  'pkill',
  'pgrep',
  'killall',
  'ps',
  'seq',
  'date',
  'sleep',
  'column',
  'fold',
  'fmt',
  'nl',
  'paste',
  'join',
  'split',
  'od',
  'xxd',
  'hexdump',
  'strings',
  'tar',
  'zip',
  'unzip',
  'gzip',
  'gunzip',
  'xz',
  'bzip2',
  'zstd',
  'find',
  'sed',
  'awk',
  'gawk',
  'curl',
  'wget',
  'command',
  'chmod',
  'chown',
  'chgrp',
  'rm',
  'rmdir',
  'mkfs',
  'sha512sum',
  'du',
  'df',
  'tree',
  'file',
  'printenv',
  'getent',
  'id',
  'groups',
  'uname',
  'hostname'
])
/** Tools whose first operand is a subcommand (never a program they run). */
const subcommandTools = new Set([
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'docker',
  'podman',
  'cargo',
  'pip',
  'pip3',
  'brew',
  'kubectl',
  'helm',
  'gh',
  'conda',
  'poetry',
  'go',
  'dotnet',
  'apt',
  'apt-get',
  'dnf',
  'yum',
  'snap',
  'flatpak',
  'systemctl',
  'rustup',
  'uv',
  'deno',
  'terraform',
  'gem',
  'composer',
  'mvn',
  'gradle'
])
/** A word that can name a program: a file name or path, not an option, a URL, an assignment or text. */
const programShape = /^[\w./+@%-]+$/
const nameShape = /^(?!\d+$)\w[\w.+-]*$/
/** At most this many carried readings per line (a line of many words is read up to here). */
const maxCarried = 64

/** One carried reading: the command `view` that command `carrier` may run (`text`: split from one word). */
export type CarriedReading = { view: CommandView; carrier: number; text?: true; among?: CommandView[] }

/** The carried readings of a line's commands (see the file comment). */
export function carriedReadings(views: readonly CommandView[]): CarriedReading[] {
  const out: CarriedReading[] = []
  views.forEach((view, carrier) => {
    if (view.program === '' || dataPrograms.has(view.program)) return
    const argv = view.command.argv
    const first = subcommandTools.has(view.program) ? firstOperandIndex(argv) : -1
    for (let i = 1; i < argv.length && out.length < maxCarried; i++) {
      const value = argv[i]!.value
      const eq = value.indexOf('=')
      // One word holding a command line (`nix-shell --run 'git push'`, `--cmd='rm -rf ~'`): its words, split at blanks.
      const line = (eq > 0 && value.startsWith('-') ? value.slice(eq + 1) : value).trim()
      if (/\s/.test(line)) {
        out.push(...textReadings(view, line, carrier))
        continue
      }
      if (i === first || value.startsWith('-') || !programShape.test(value) || value.includes('://') || !nameShape.test(baseName(value))) continue
      out.push({ view: viewOf({ ...view.command, argv: argv.slice(i) }), carrier })
    }
  })
  return out
}

/**
 * One word holding a command line, read as its commands: split at `|`, `;`, `&`, `&&`, `||` and
 * newlines, then at blanks (not parsed: quotes stay), each stage fed by the one before a `|`.
 */
function textReadings(view: CommandView, line: string, carrier: number): CarriedReading[] {
  const parts = line.split(/(\|\||&&|[|;&\n])/)
  const among: CommandView[] = []
  let pipe = false
  for (let k = 0; k < parts.length; k += 2) {
    const words = parts[k]!.trim()
      .split(/\s+/)
      .filter((w) => w !== '')
    if (words.length > 0 && programShape.test(words[0]!) && nameShape.test(baseName(words[0]!))) {
      const fedBy = pipe && among.length > 0 ? [{ from: among.length - 1, how: 'stdin' as const }] : []
      among.push(viewOf({ ...view.command, argv: words.map((w) => ({ value: w, static: false })), fedBy, redirects: [] }))
    }
    pipe = parts[k + 1] === '|'
  }
  return among.length > 1 || (among.length === 1 && among[0]!.args.length > 0) ? among.map((v) => ({ view: v, carrier, text: true, among })) : []
}

function firstOperandIndex(argv: readonly CommandWord[]): number {
  for (let i = 1; i < argv.length; i++) if (!argv[i]!.value.startsWith('-')) return i
  return -1
}

/** The first carried reading that hits a deny family or the profile's denylist, as a `command.carried` hit. */
export function carriedHit(
  carried: readonly CarriedReading[],
  all: readonly CommandView[],
  folders: readonly (readonly Folder[])[],
  denylist: readonly { entry: string; words: string[] }[]
): RuleHit | undefined {
  for (const { view, carrier, among } of carried) {
    const by = all[carrier]!
    const hit = familyHit(view, among ?? all, folders[carrier] ?? [null])
    if (hit)
      return { rule: 'command.carried', reason: `${shown(by)}: ${by.program} can run \`${shown(view)}\`, which the policy blocks (${hit.rule}: ${hit.reason})` }
    for (const reading of listReadings(view)) {
      const entry = denylist.find((d) => startsWith(reading, d.words))
      if (entry)
        return {
          rule: 'command.carried',
          reason: `${shown(by)}: ${by.program} can run \`${shown(reading)}\`, which matches the profile's denylist entry "${entry.entry}"`
        }
    }
  }
  return undefined
}

const startsWith = (argv: readonly string[], prefix: readonly string[]) => prefix.length <= argv.length && prefix.every((word, i) => argv[i] === word)

/** A word still holding an expansion, a substitution or a glob the analysis could not resolve. */
const unresolvedText = /[$`*?[]|[<>]\(/
const isUnresolved = (word: CommandWord) => !word.static && unresolvedText.test(word.value)
/** Programs that delete their path operands (for the probe of `rm -rf $a`). */
const deleting = new Set(['rm', 'rmdir', 'unlink', 'shred', 'find', 'rsync'])
/** An expansion or substitution inside a word's best reading. */
const expansion = /\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[@*#?$!0-9-]|`[^`]*`/g

/** The first word only known at run time that could complete a denied command (see the file comment). */
export function unresolvedHit(
  views: readonly CommandView[],
  folders: readonly (readonly Folder[])[],
  denylist: readonly { entry: string; words: string[] }[]
): RuleHit | undefined {
  for (let index = 0; index < views.length; index++) {
    const view = views[index]!
    const argv = view.command.argv
    if (argv.every((w) => w.static) || !argv.slice(1).some(isUnresolved)) continue
    for (const reading of denylist.length > 0 ? listReadings(view) : []) {
      const k = reading.findIndex((w, i) => i > 0 && unresolvedText.test(w))
      if (k < 1) continue
      const entry = denylist.find((d) => k < d.words.length && startsWith(reading.slice(0, k), canonical(d.words.slice(0, k))))
      if (entry) {
        return {
          rule: 'command.dynamic',
          reason: `${shown(view)}: ${reading[k]} is only known at run time, and \`${reading.slice(0, k).join(' ')} …\` can be the profile's denylist entry "${entry.entry}"`
        }
      }
    }
    if (!deleting.has(view.program)) continue
    for (const probe of ['/', '']) {
      const probed = viewOf({ ...view.command, argv: argv.map((w) => (isUnresolved(w) ? { value: w.value.replace(expansion, probe), static: false } : w)) })
      const hit = familyHit(probed, views, folders[index] ?? [null], 'deny.rm_root')
      const word = argv.find((w, i) => i > 0 && isUnresolved(w))?.value ?? ''
      if (hit)
        return {
          rule: 'command.dynamic',
          reason: `${shown(view)}: ${word} is only known at run time; were it ${probe === '' ? 'empty' : probe}, this would be ${hit.rule} (${hit.reason})`
        }
    }
  }
  return undefined
}

/** The carried readings' risk flags that the line's own commands do not raise (under `on_risk`). */
export function carriedInput(input: CommandPolicyInput): CommandPolicyInput {
  const { timeoutSeconds: _timeout, recoverable: _recoverable, ...rest } = input
  return rest
}

/** Programs that make a file a copy or a link of another. */
const linkers = new Set(['ln', 'cp', 'install', 'mv', 'link'])
const linkerValued = new Set(['-S', '--suffix', '-t', '--target-directory', '-m', '--mode', '-o', '--owner', '-g', '--group', '--backup'])
/** A path as written, `./` prefixes and repeated slashes dropped, for comparing spellings in one line. */
const plainPath = (value: string) => value.replace(/\/+/g, '/').replace(/^(?:\.\/)+/, '')

/** Commands whose program was linked or copied from another earlier in the line, read as that program (see the file comment). */
export function linkedReadings(views: readonly CommandView[]): CommandView[] {
  const made = new Map<string, string>()
  const out: CommandView[] = []
  for (const view of views) {
    const name = view.command.argv[0]?.value ?? ''
    const source = made.get(plainPath(name))
    if (source !== undefined) out.push(viewOf({ ...view.command, argv: [{ value: source, static: false }, ...view.command.argv.slice(1)] }))
    if (!linkers.has(view.program)) continue
    const { operands, values } = splitArgs(view.args, linkerValued)
    const dir = values.get('-t') ?? values.get('--target-directory')
    const from = operands[0]
    if (from === undefined) continue
    const to = dir !== undefined ? `${dir}/${baseName(from)}` : operands.length === 1 ? baseName(from) : operands[operands.length - 1]!
    const resolved = made.get(plainPath(from)) ?? from
    made.set(plainPath(to), resolved)
    // `ln -s SRC DIR`: the link is DIR/NAME when DIR is a folder; both spellings are kept.
    if (operands.length === 2) made.set(plainPath(`${to}/${baseName(from)}`), resolved)
  }
  return out
}

/** A command run through a link or copy of a program only known at run time whose arguments complete a denylist entry. */
export function linkedHit(linked: readonly CommandView[], denylist: readonly { entry: string; words: string[] }[]): RuleHit | undefined {
  for (const view of linked) {
    const source = view.command.argv[0]?.value ?? ''
    if (!unresolvedText.test(source)) continue
    const entry = denylist.find((d) => d.words.length > 1 && startsWith(view.args, d.words.slice(1)))
    if (entry)
      return {
        rule: 'command.dynamic',
        reason: `${shown(view)}: the program is a link or copy of ${source}, only known at run time, and with these arguments it can be the profile's denylist entry "${entry.entry}"`
      }
  }
  return undefined
}
