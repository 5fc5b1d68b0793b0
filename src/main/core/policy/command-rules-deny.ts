import { downloadExecuteHit } from './command-rules-download'
import { findPaths, writeTargets } from './command-rules-targets'
import { baseName, firstOperand, globMatches, hasFlag, hasGlob, resolvePath, segmentMatches, shown, splitArgs, type CommandView } from './command-rules-words'

/**
 * The default denylist (SPEC §6.3): families of commands that never run, whatever the ask mode.
 * Each family reads the effective words of every simple command (wrappers looked through, dynamic
 * words at their best reading), so `r''m`, `/bin/rm`, `sudo rm`, `a=r; b=m; $a$b` all arrive as `rm`.
 * A hit carries the family's rule id and a reason naming the command and what it hit.
 */

/** A rule that decided, and why (for the operator). */
export type RuleHit = { rule: string; reason: string }

type Family = (view: CommandView, all: readonly CommandView[]) => string | undefined

/** First-level folders of `/` whose recursive removal wrecks the system. */
const systemFolders = new Set(['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'libx32', 'media', 'mnt', 'opt', 'proc', 'root', 'run', 'sbin', 'srv', 'sys', 'usr', 'var', 'snap'])

/** What a path word names when it is the filesystem root, the home folder or a system folder. */
export function rootTarget(value: string): string | undefined {
  const path = resolvePath(value, [])
  if (path.anchor !== 'root' && path.anchor !== 'home') return undefined
  const segments = [...path.segments]
  while (segments.length > 0 && hasGlob(segments[segments.length - 1]!)) segments.pop()
  if (segments.length === 0) return path.anchor === 'root' ? 'the filesystem root' : 'the home folder'
  if (path.anchor === 'root' && segments.length === 1 && systemFolders.has(segments[0]!)) return `the system folder /${segments[0]}`
  return undefined
}

const rootOperand = (operands: readonly string[]) => {
  for (const operand of operands) {
    const what = rootTarget(operand)
    if (what) return `${operand} (${what})`
  }
  return undefined
}

const deleters = new Set(['rm', 'unlink', 'shred', 'rmdir'])

const rmRoot: Family = (view, all) => {
  if (view.program === 'rm') {
    const { options, operands } = splitArgs(view.args)
    const recursive = hasFlag(options, 'r') || hasFlag(options, 'R', '--recursive')
    if (options.includes('--no-preserve-root')) return `${shown(view)}: --no-preserve-root switches off rm's protection of /`
    const hit = recursive ? rootOperand(operands) : undefined
    if (hit) return `${shown(view)}: recursive delete of ${hit}`
    if (view.command.argsFromStdin) {
      // `find / | xargs rm`, `echo / | xargs rm -rf`: the words come from a command that names the root.
      for (const feed of view.command.fedBy) {
        const source = all[feed.from]
        const named = source && (source.program === 'find' ? rootOperand(findPaths(source.args)) : source.program === 'echo' || source.program === 'printf' ? rootOperand(source.args) : undefined)
        if (named) return `${shown(view)}: deletes what \`${shown(source)}\` lists, ${named}`
      }
    }
  }
  if (view.program === 'find' && view.args.includes('-delete')) {
    const hit = rootOperand(findPaths(view.args))
    if (hit) return `${shown(view)}: find -delete from ${hit}`
  }
  if (deleters.has(view.program) && view.args.includes('{}')) {
    for (const wrapper of view.command.wrappers) {
      const hit = baseName(wrapper.argv[0] ?? '') === 'find' ? rootOperand(findPaths(wrapper.argv.slice(1))) : undefined
      if (hit) return `${shown(view)}: run by find -exec on every file under ${hit}`
    }
  }
  return undefined
}

const formatters = new Set(['mke2fs', 'mkswap', 'wipefs', 'mkdosfs', 'mkntfs', 'blkdiscard'])

const mkfs: Family = (view) =>
  view.program.startsWith('mkfs') || formatters.has(view.program) ? `${shown(view)}: ${view.program} formats or erases a file system or device` : undefined

const deviceNames = ['sda', 'sdb', 'hda', 'vda', 'xvda', 'nvme0n1', 'mmcblk0', 'mem', 'kmem', 'port']
const devicePattern = /^(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|mem$|kmem$|port$|dm-\d|md\d|loop\d|nbd\d|sr\d|fd\d|disk$|disk\/|mapper\/|root$)/

/** True when a path word is a disk, partition or memory device. */
export function isRawDevice(value: string): boolean {
  const path = resolvePath(value, [])
  if (path.anchor !== 'root' || path.segments[0] !== 'dev' || path.segments.length < 2) return false
  const rest = path.segments.slice(1).join('/')
  if (devicePattern.test(rest)) return true
  const first = path.segments[1]!
  return hasGlob(first) && deviceNames.some((name) => globMatches(first, name))
}

const rawDevice: Family = (view) => {
  const device = writeTargets(view).find(isRawDevice)
  return device ? `${shown(view)}: writes to the device ${device}` : undefined
}

const forkBomb: Family = (view) => {
  const { inFunction, concurrent, argv } = view.command
  return inFunction !== undefined && concurrent && argv[0]?.value === inFunction ? `function ${inFunction} starts copies of itself in parallel (${shown(view)}): a fork bomb` : undefined
}

const power: Family = (view) => {
  const { program, args } = view
  const sub = firstOperand(args)?.value
  const hit =
    ['shutdown', 'reboot', 'halt', 'poweroff', 'telinit', 'kexec'].includes(program) ||
    (program === 'init' && (sub === '0' || sub === '6')) ||
    ((program === 'systemctl' || program === 'loginctl') && ['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot'].includes(sub ?? ''))
  if (hit) return `${shown(view)}: shuts down or restarts the machine`
  if (writeTargets(view).some((t) => t === '/proc/sysrq-trigger')) return `${shown(view)}: writes to /proc/sysrq-trigger (can reboot or halt the machine)`
  return undefined
}

const recursivePermissionsRoot: Family = (view) => {
  if (!['chmod', 'chown', 'chgrp', 'setfacl'].includes(view.program)) return undefined
  const { options, operands } = splitArgs(view.args)
  if (!options.some((o) => o === '--recursive' || /^-[A-Za-z]*R/.test(o))) return undefined
  const hit = rootOperand(operands)
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
  return args.slice(i).some((a) => a === '-1') ? `${shown(view)}: kill -1 signals every process the user can reach` : undefined
}

/** Credential stores and history files in a home folder; the second level when only part is secret. */
const homeSecrets: { name: string; inside?: string[] }[] = [
  ...['.ssh', '.aws', '.gnupg', '.kube', '.netrc', '.git-credentials', '.pgpass', '.azure', '.bash_history', '.zsh_history', '.sh_history', '.history', '.python_history', '.node_repl_history', '.psql_history', '.mysql_history', '.lesshst', '.viminfo'].map((name) => ({ name })),
  { name: '.docker', inside: ['config.json'] },
  { name: '.config', inside: ['gcloud', 'gh'] }
]

/** What credential store a path word names, if any (`~/.ssh`, `$HOME/.aws`, `/root/.netrc`, `/home/x/.kube`, `/etc/shadow`). */
export function credentialPath(value: string): string | undefined {
  const path = resolvePath(value, [])
  let rest: string[]
  if (path.anchor === 'home') rest = path.segments
  else if (path.anchor === 'root' && path.segments[0] === 'root') rest = path.segments.slice(1)
  else if (path.anchor === 'root' && path.segments[0] === 'home' && path.segments.length > 2) rest = path.segments.slice(2)
  else if (path.anchor === 'root' && path.segments[0] === 'etc' && path.segments.length === 2 && segmentMatches(path.segments[1]!, 'shadow')) return '/etc/shadow'
  else if (path.anchor === 'root' && path.segments[0] === 'etc' && path.segments.length === 2 && segmentMatches(path.segments[1]!, 'gshadow')) return '/etc/gshadow'
  else return undefined
  const first = rest[0]
  if (first === undefined) return undefined
  for (const secret of homeSecrets) {
    if (!segmentMatches(first, secret.name)) continue
    if (!secret.inside) return `~/${secret.name}`
    const second = rest[1]
    const inner = second === undefined ? undefined : secret.inside.find((name) => segmentMatches(second, name))
    if (inner) return `~/${secret.name}/${inner}`
  }
  return undefined
}

const credentialRead: Family = (view) => {
  const words = [...view.command.argv.map((w) => w.value), ...view.command.redirects.map((r) => r.target.value)]
  for (const word of words) {
    const equals = word.indexOf('=')
    const found = credentialPath(word) ?? (equals > 0 ? credentialPath(word.slice(equals + 1)) : undefined)
    if (found) return `${shown(view)}: touches ${found}, a credential or shell-history file outside the workspace`
  }
  return undefined
}

const privileged = new Set(['sudo', 'su', 'doas', 'pkexec', 'runuser', 'sudoedit'])

const privilege: Family = (view) => {
  const wrapper = view.command.wrappers.find((w) => privileged.has(baseName(w.argv[0] ?? '')))
  if (wrapper) return `${wrapper.argv.join(' ')} ${shown(view)}: ${baseName(wrapper.argv[0]!)} raises privileges`
  return privileged.has(view.program) ? `${shown(view)}: ${view.program} raises privileges` : undefined
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

/** The first denylist family any command of the line hits, or undefined. */
export function defaultDenyHit(views: readonly CommandView[]): RuleHit | undefined {
  for (const [rule, family] of families) {
    for (const view of views) {
      const reason = family(view, views)
      if (reason) return { rule, reason }
    }
  }
  return undefined
}
