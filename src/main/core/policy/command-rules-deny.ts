import { credentialRead } from './command-rules-credentials'
import { mkfs, power, rawDevice } from './command-rules-devices'
import { downloadExecuteHit } from './command-rules-download'
import { resolveAll } from './command-rules-folders'
import { findPaths } from './command-rules-targets'
import { baseName, firstOperand, hasFlag, hasGlob, isLong, shown, splitArgs, type CommandView, type Family, type Folder } from './command-rules-words'

/**
 * The default denylist (SPEC §6.3): families of commands that never run, whatever the ask mode.
 * Each family reads the effective words of every simple command (wrappers looked through, dynamic
 * words at their best reading), so `r''m`, `/bin/rm`, `sudo rm`, `a=r; b=m; $a$b` all arrive as `rm`,
 * and resolves relative paths from every folder the command may run in (`cd / && rm -rf *`).
 * Long options count in any abbreviation getopt accepts (`rm --rec /`). This file holds the root
 * deletion, recursive permission, kill-all, fork-bomb and privilege families; the device and power
 * families are in `command-rules-devices.ts`, credentials in `command-rules-credentials.ts`,
 * download-and-execute in `command-rules-download.ts`. A hit carries the family's rule id and a reason.
 */

/** A rule that decided, and why (for the operator). */
export type RuleHit = { rule: string; reason: string }

/** First-level folders of `/` whose recursive removal wrecks the system. */
const systemFolders = new Set([
  'bin',
  'boot',
  'dev',
  'etc',
  'home',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'media',
  'mnt',
  'opt',
  'proc',
  'root',
  'run',
  'sbin',
  'srv',
  'sys',
  'usr',
  'var',
  'snap'
])

/** What a path word names (from any of `folders`) when it is the filesystem root, the home folder or a system folder. */
export function rootTarget(value: string, folders: readonly Folder[] = []): string | undefined {
  for (const path of resolveAll(value, folders)) {
    if (path.anchor !== 'root' && path.anchor !== 'home') continue
    const segments = [...path.segments]
    while (segments.length > 0 && hasGlob(segments[segments.length - 1]!)) segments.pop()
    if (segments.length === 0) return path.anchor === 'root' ? 'the filesystem root' : 'the home folder'
    if (path.anchor === 'root' && segments.length === 1 && systemFolders.has(segments[0]!)) return `the system folder /${segments[0]}`
  }
  return undefined
}

const rootOperand = (operands: readonly string[], folders: readonly Folder[]) => {
  for (const operand of operands) {
    const what = rootTarget(operand, folders)
    if (what) return `${operand} (${what})`
  }
  return undefined
}

/** The starting points of a `find` this command is run by (`find / -exec CMD {} +`), when it takes `{}`. */
function findExecRoots(view: CommandView): string[] {
  if (!view.args.some((a) => a.includes('{}'))) return []
  return view.command.wrappers.flatMap((w) => (baseName(w.argv[0] ?? '') === 'find' ? findPaths(w.argv.slice(1)) : []))
}

const deleters = new Set(['rm', 'unlink', 'shred', 'rmdir'])

const rmRoot: Family = (view, all, folders) => {
  const { options, operands } = splitArgs(view.args)
  if (view.program === 'rm') {
    if (options.some((o) => isLong(o, '--no-preserve-root'))) return `${shown(view)}: --no-preserve-root switches off rm's protection of /`
    const hit = hasFlag(options, 'r') || hasFlag(options, 'R', '--recursive') ? rootOperand(operands, folders) : undefined
    if (hit) return `${shown(view)}: recursive delete of ${hit}`
    if (view.command.argsFromStdin) {
      // `find / | xargs rm`, `echo / | xargs rm -rf`: the words come from a command that names the root.
      for (const feed of view.command.fedBy) {
        const source = all[feed.from]
        const named =
          source &&
          (source.program === 'find'
            ? rootOperand(findPaths(source.args), folders)
            : source.program === 'echo' || source.program === 'printf'
              ? rootOperand(source.args, folders)
              : undefined)
        if (named) return `${shown(view)}: deletes what \`${shown(source)}\` lists, ${named}`
      }
    }
  }
  if (view.program === 'find' && view.args.includes('-delete')) {
    const hit = rootOperand(findPaths(view.args), folders)
    if (hit) return `${shown(view)}: find -delete from ${hit}`
  }
  if (deleters.has(view.program)) {
    const hit = rootOperand(findExecRoots(view), folders)
    if (hit) return `${shown(view)}: run by find -exec on every file under ${hit}`
  }
  if (view.program === 'rsync' && options.some((o) => o.startsWith('--del') || isLong(o, '--delete'))) {
    const hit = operands.length >= 2 ? rootOperand(operands.slice(-1), folders) : undefined
    if (hit) return `${shown(view)}: rsync --delete empties ${hit} of everything the source lacks`
  }
  if (view.program === 'mv') {
    const toTarget = options.some((o) => o === '-t' || o.startsWith('-t') || isLong(o, '--target-directory'))
    const hit = rootOperand(toTarget ? operands : operands.slice(0, -1), folders)
    if (hit) return `${shown(view)}: moves ${hit} away`
  }
  return undefined
}

const recursivePermissionsRoot: Family = (view, _all, folders) => {
  if (!['chmod', 'chown', 'chgrp', 'setfacl', 'chattr'].includes(view.program)) return undefined
  const { options, operands } = splitArgs(view.args)
  const viaFind = rootOperand(findExecRoots(view), folders)
  if (viaFind) return `${shown(view)}: run by find -exec on every file under ${viaFind}`
  if (!hasFlag(options, 'R', '--recursive')) return undefined
  const hit = rootOperand(operands, folders)
  return hit ? `${shown(view)}: recursive ${view.program} of ${hit}` : undefined
}

const killAll: Family = (view) => {
  if (view.program === 'killall5') return `${shown(view)}: signals every process on the machine`
  if (view.program !== 'kill') return undefined
  const args = view.args
  let i = 0
  if (args[0] === '-s' || args[0] === '-n') i = 2
  else if (args[0] !== undefined && args[0] !== '--' && args[0].startsWith('-')) i = 1
  if (args[i] === '--') i++
  // bash reads the pid as a number: `-1`, `-01`, `-0001` are all "every process".
  return args.slice(i).some((a) => /^-0*1$/.test(a)) ? `${shown(view)}: kill -1 signals every process the user can reach` : undefined
}

const forkBomb: Family = (view) => {
  const { inFunction, concurrent, argv } = view.command
  return inFunction !== undefined && concurrent && argv[0]?.value === inFunction
    ? `function ${inFunction} starts copies of itself in parallel (${shown(view)}): a fork bomb`
    : undefined
}

const privileged = new Set(['sudo', 'su', 'doas', 'pkexec', 'runuser', 'sudoedit', 'run0', 'calife', 'ksu', 'dzdo', 'pbrun', 'pfexec', 'please', 'sudo-rs'])

/** True when argv raises privileges: a privileged program, `systemd-run` on the system manager, `machinectl shell`. */
function raises(argv: readonly string[]): boolean {
  const program = baseName(argv[0] ?? '')
  if (privileged.has(program)) return true
  if (program === 'systemd-run') return !argv.slice(1).some((a) => isLong(a, '--user') && a.length >= 5)
  if (program === 'machinectl')
    return ['shell', 'login'].includes(firstOperand(argv.slice(1), new Set(['-M', '--machine', '-p', '--property', '-E', '--setenv', '--uid']))?.value ?? '')
  return false
}

const privilege: Family = (view) => {
  const wrapper = view.command.wrappers.find((w) => raises(w.argv))
  if (wrapper) return `${wrapper.argv.join(' ')} ${shown(view)}: ${baseName(wrapper.argv[0]!)} raises privileges`
  return raises([view.program, ...view.args]) ? `${shown(view)}: ${view.program} raises privileges` : undefined
}

/** The families in the order they are reported when a line hits several. */
const families: [string, Family][] = [
  ['deny.rm_root', rmRoot],
  ['deny.mkfs', mkfs],
  ['deny.raw_device', rawDevice],
  ['deny.fork_bomb', forkBomb],
  ['deny.power', power],
  ['deny.recursive_permissions_root', recursivePermissionsRoot],
  ['deny.download_execute', downloadExecuteHit],
  ['deny.kill_all', killAll],
  ['deny.credential_read', credentialRead],
  ['deny.privilege', privilege]
]

/** The first family `view` hits, read among `all` (the line's commands, for feeds), or undefined. */
export function familyHit(view: CommandView, all: readonly CommandView[], folders: readonly Folder[], only?: string): RuleHit | undefined {
  for (const [rule, family] of families) {
    if (only !== undefined && rule !== only) continue
    const reason = family(view, all, folders)
    if (reason) return { rule, reason }
  }
  return undefined
}

/** The first denylist family any command of the line hits, or undefined (`folders[i]`: where views[i] may run). */
export function defaultDenyHit(views: readonly CommandView[], folders: readonly (readonly Folder[])[]): RuleHit | undefined {
  for (const [rule, family] of families) {
    for (let i = 0; i < views.length; i++) {
      const reason = family(views[i]!, views, folders[i] ?? [null])
      if (reason) return { rule, reason }
    }
  }
  return undefined
}
