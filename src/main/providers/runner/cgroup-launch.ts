import { dirname } from 'node:path'
import { feedPipe, spawnGroup } from './bounded-process'
import type { CgroupLimits, CgroupSupport } from './cgroup-limits'
import { closeDescriptorsAbove } from './descriptors'
import { ProviderError } from '../../core/provider-error'
import type { Launch } from './local-program-runner'

/** The gate the program waits behind: it starts only once the host has placed it in its cgroup. */
const gateFd = 3

/**
 * Launches one host run (no sandbox) so that it can be held to account: as `identity` (never
 * root when Airlock is root), with only stdio open, and — where the host offers cgroups — inside
 * a fresh per-run cgroup that the host joins *before* the program starts (it waits on a pipe),
 * so everything it starts, even a `setsid` or double-forked child that left its process group,
 * is limited (pids, memory) and ended with the run.
 */
export function launchInRunCgroup(
  bash: string,
  argv: string[],
  options: { cwd: string; env: Record<string, string>; identity?: { uid: number; gid: number }; cgroups?: CgroupSupport; limits: CgroupLimits }
): Launch {
  const cgroup = options.cgroups?.create(options.limits)
  const script = `IFS= read -r _ <&${gateFd} || exit 126; exec ${gateFd}<&-; ${closeDescriptorsAbove(2)}; exec "$@"`
  // --norc: stdin is a socket pair, and bash would then take itself for an ssh session and read ~/.bashrc.
  const child = spawnGroup([bash, '--norc', '--noprofile', '-c', script, 'airlock-run', ...argv], {
    cwd: options.cwd,
    env: options.env,
    stdin: 'pipe',
    extraPipes: 1,
    identity: options.identity
  })
  child.on('error', () => undefined)
  try {
    if (cgroup && child.pid !== undefined) cgroup.join(child.pid)
  } catch (error) {
    // A run outside its cgroup could leave processes behind: never start it.
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // already gone
    }
    void cgroup?.finish()
    throw new ProviderError('cgroup_unavailable', `could not place the run in its cgroup: ${(error as Error).message}`, { cause: error })
  }
  return {
    prepared: { child, begin: () => feedPipe(child, gateFd, Buffer.from('\n')) },
    finish: async () => (await cgroup?.finish()) ?? undefined,
    cgroupDirs: cgroup?.procsFiles.map((file) => dirname(file))
  }
}
