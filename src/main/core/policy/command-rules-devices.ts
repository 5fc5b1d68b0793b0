import { resolveAll } from './command-rules-folders'
import { writeTargets } from './command-rules-targets'
import { firstOperand, globMatches, hasGlob, segmentMatches, shown, splitArgs, type Family, type Folder } from './command-rules-words'

/**
 * The machine-wrecking families that act on devices and the kernel: `deny.mkfs` (formatting and
 * discarding: mkfs*, mke2fs, mkswap, wipefs, blkdiscard), `deny.raw_device` (any write to a disk,
 * partition or memory device, by `dd of=`, a redirection, `tee`, `cp`..., and partition-table
 * editors — fdisk, sfdisk, sgdisk, gdisk, parted — run on a device for anything but listing) and
 * `deny.power` (shutdown, reboot, halt, `systemctl poweroff` or `isolate`/`start` of a power target,
 * and writes to `/proc/sysrq-trigger` however the path is spelled).
 */

const formatters = new Set(['mke2fs', 'mkswap', 'wipefs', 'mkdosfs', 'mkntfs', 'blkdiscard', 'sg_format'])

export const mkfs: Family = (view) =>
  view.program.startsWith('mkfs') || formatters.has(view.program) ? `${shown(view)}: ${view.program} formats or erases a file system or device` : undefined

const deviceNames = ['sda', 'sdb', 'hda', 'vda', 'xvda', 'nvme0n1', 'mmcblk0', 'mem', 'kmem', 'port']
const devicePattern =
  /^(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|mem$|kmem$|port$|dm-\d|md\d|loop\d|nbd\d|sr\d|fd\d|disk$|disk\/|mapper\/|block\/|char\/|root$)/

/** True when a path word (from any of `folders`) is a disk, partition or memory device. */
export function isRawDevice(value: string, folders: readonly Folder[] = []): boolean {
  return resolveAll(value, folders).some((path) => {
    if (path.anchor !== 'root' || path.segments[0] !== 'dev' || path.segments.length < 2) return false
    if (devicePattern.test(path.segments.slice(1).join('/'))) return true
    const first = path.segments[1]!
    return hasGlob(first) && deviceNames.some((name) => globMatches(first, name))
  })
}

const partitioners = new Set(['fdisk', 'sfdisk', 'sgdisk', 'gdisk', 'cgdisk', 'cfdisk', 'parted', 'hdparm', 'nvme', 'badblocks'])
/** Options that only list or check, per partition tool. */
const listing =
  /^(?:-l|--list|-x|--list-details|-d|--dump|-J|--json|-s|--show-size|-V|--verify|-v|--version|-h|--help|-p|--print|-i|--info|-g|--show-geometry|-F|--list-free|-L|--list-types|-m|--machine|-I|-g|-n)$/
const partedReads = new Set(['print', 'p', 'unit', 's', 'b', 'kb', 'mb', 'gb', 'tb', '%', 'cyl', 'chs', 'compact', 'free', 'help'])

/** A partition or disk tool changing a device (`sgdisk --zap-all /dev/sda`, `parted /dev/sda mklabel gpt`). */
function partitionsDevice(view: Parameters<Family>[0], folders: readonly Folder[]): boolean {
  if (!partitioners.has(view.program)) return false
  const { options, operands } = splitArgs(view.args)
  if (!operands.some((o) => isRawDevice(o, folders) || o === '/dev/' || /^\/dev\/[^/]*[*?[]/.test(o))) return false
  if (view.program === 'hdparm')
    return options.some((o) => /^--(?:security-erase|security-set|trim-sector|write-sector|make-bad-sector|fwdownload|dco-restore)/.test(o))
  if (view.program === 'nvme') return ['format', 'sanitize', 'write', 'write-zeroes', 'ns-rescan'].includes(operands[0] ?? '')
  if (view.program === 'badblocks') return options.some((o) => /^-[a-zA-Z]*[wn]/.test(o))
  if (view.program === 'parted')
    return !options.some((o) => o === '-l' || o === '--list') && !operands.filter((o) => !o.startsWith('/dev/')).every((o) => partedReads.has(o.toLowerCase()))
  return options.length === 0 || !options.every((o) => listing.test(o))
}

export const rawDevice: Family = (view, _all, folders) => {
  const device = writeTargets(view).find((target) => isRawDevice(target, folders))
  if (device) return `${shown(view)}: writes to the device ${device}`
  return partitionsDevice(view, folders) ? `${shown(view)}: ${view.program} rewrites a disk's partition table or contents` : undefined
}

const powerUnits = /^(?:poweroff|reboot|halt|kexec|soft-reboot|ctrl-alt-del|shutdown|rescue|emergency|exit|final)(?:\.target)?$/
const unitVerbs = new Set(['start', 'isolate', 'restart', 'try-restart', 'reload-or-restart', 'try-reload-or-restart', 'enable', 'reenable'])

const writesSysrq = (targets: readonly string[], folders: readonly Folder[]) =>
  targets.some((target) =>
    resolveAll(target, folders).some(
      (p) => p.anchor === 'root' && p.segments.length === 2 && segmentMatches(p.segments[0]!, 'proc') && segmentMatches(p.segments[1]!, 'sysrq-trigger')
    )
  )

export const power: Family = (view, _all, folders) => {
  const { program, args } = view
  const sub = firstOperand(args)?.value
  const systemd = program === 'systemctl' || program === 'loginctl'
  const hit =
    ['shutdown', 'reboot', 'halt', 'poweroff', 'telinit', 'kexec'].includes(program) ||
    (program === 'init' && (sub === '0' || sub === '6')) ||
    (systemd && ['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot', 'rescue', 'emergency'].includes(sub ?? '')) ||
    (systemd &&
      unitVerbs.has(sub ?? '') &&
      splitArgs(args)
        .operands.slice(1)
        .some((unit) => powerUnits.test(unit)))
  if (hit) return `${shown(view)}: shuts down or restarts the machine`
  if (writesSysrq(writeTargets(view), folders)) return `${shown(view)}: writes to /proc/sysrq-trigger (can reboot or halt the machine)`
  return undefined
}
