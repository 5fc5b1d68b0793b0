import type Docker from 'dockerode'
import { absentProtectedIn, entriesKey, hiddenEntries, protectedEntries, type AbsentProtected, type HiddenEntry, type ProtectedEntry, type WorkspaceEntry } from '../process/workspace-entries'
import { DockerProviderError } from './docker-errors'
import { isHostKeptAreas, isLexicallyInside, type MountedRoot } from './mounted-roots'

/**
 * What a session container mounts over the workspace it binds whole, as bubblewrap does
 * (protected-binds.ts, `SandboxPlan.hidden`): each protected path read-only over itself with the
 * folders above it pinned (bound over themselves, so a rename of `.git` fails with EBUSY), and
 * each hidden (labelled) entry under an empty read-only tmpfs or `/dev/null`. Docker binds by path,
 * so after the container starts `assertWorkspaceMounts` proves from inside it that each protected
 * path is the very entry checked here and each hidden one is not; the set is fixed when the
 * container is made, and `WorkspaceMounts.changed` tells the health check when what exists now
 * differs (a run made `.git`), so the next run gets a fresh container that covers it.
 */
export class WorkspaceMounts {
  readonly protected: ProtectedEntry[]
  readonly hidden: HiddenEntry[]
  private readonly key: string

  constructor(
    private readonly roots: readonly MountedRoot[],
    private readonly policy: { protectedPaths?: string[]; hiddenPaths?: string[] }
  ) {
    const { protected: guarded, hidden } = this.now()
    this.protected = guarded
    this.hidden = hidden
    this.key = keyOf(guarded, hidden)
  }

  /** True when the protected or hidden entries that exist now are not the ones this container mounted. */
  changed(): boolean {
    const { protected: guarded, hidden } = this.now()
    return keyOf(guarded, hidden) !== this.key
  }

  /** The protected paths absent from the workspaces now (a run starts): what it must not leave made (see `quarantineAppearedIn`). */
  absent(): AbsentProtected {
    return absentProtectedIn(this.workspaces(), this.policy.protectedPaths)
  }

  /** The container's extra binds (after the roots') and tmpfs mounts. */
  hostConfig(): { binds: string[]; mounts: Docker.MountSettings[] } {
    // One mount per path (the engine refuses two): a protected entry over a pinned folder, a hidden one over both.
    const binds = new Map<string, string>()
    for (const entry of this.protected) {
      for (const parent of entry.pinned) if (!binds.has(parent.path)) binds.set(parent.path, `${parent.path}:${parent.path}:rw`)
      binds.set(entry.path, `${entry.path}:${entry.path}:ro`)
    }
    const mounts: Docker.MountSettings[] = []
    for (const entry of this.hidden) {
      binds.delete(entry.path)
      if (entry.directory) mounts.push({ Type: 'tmpfs', Source: '', Target: entry.path, ReadOnly: true, TmpfsOptions: { SizeBytes: 4096, Mode: 0o755 } })
      else binds.set(entry.path, `/dev/null:${entry.path}:ro`)
    }
    return { binds: [...binds.values()], mounts }
  }

  /** The paths the in-container identity probe stats, after the roots'. */
  probePaths(): string[] {
    return this.probed().map((entry) => entry.path)
  }

  /**
   * Compares what the container sees (the probe's lines after the roots') with what was checked:
   * a protected entry or pinned folder must be the very one (device and inode), a hidden one must
   * not be (something covers it). Throws `docker.mount_mismatch`.
   */
  assertMounted(seen: readonly string[]): void {
    this.probed().forEach((entry, index) => {
      const expected = `${entry.dev} ${entry.ino}`
      const saw = seen[index]?.trim()
      const hidden = this.hidden.includes(entry)
      if (hidden ? saw === expected || !saw : saw !== expected) {
        throw new DockerProviderError(
          'docker.mount_mismatch',
          `The container does not see ${hidden ? 'a hidden (labelled) entry covered' : 'the protected entry Airlock checked'} at ${entry.path} (host device/inode ${expected}, the container saw ${saw || 'nothing'}). It was removed; the workspace may have changed while the container started.`,
          { path: entry.path }
        )
      }
    })
  }

  private probed(): WorkspaceEntry[] {
    const covered = (path: string) => this.hidden.some((entry) => entry.path !== path && isLexicallyInside(entry.path, path))
    const bound = [...new Map(this.protected.flatMap((entry) => [...entry.pinned, entry]).map((entry) => [entry.path, entry])).values()]
    return [...bound.filter((entry) => !covered(entry.path) && !this.hidden.some((hidden) => hidden.path === entry.path)), ...this.hidden.filter((entry) => !covered(entry.path))]
  }

  private workspaces(): MountedRoot[] {
    return this.roots.filter((root) => !isHostKeptAreas(root.path))
  }

  private now(): { protected: ProtectedEntry[]; hidden: HiddenEntry[] } {
    const workspaces = this.workspaces()
    const hidden = workspaces.flatMap((root) => hiddenEntries(root.path, this.policy.hiddenPaths))
    // What a hidden folder covers needs no bind (and the engine could not make a mount point in a read-only tmpfs).
    const inside = (path: string) => hidden.some((entry) => entry.path !== path && isLexicallyInside(entry.path, path))
    const guarded = workspaces
      .flatMap((root) => protectedEntries(root.path, this.policy.protectedPaths))
      .filter((entry) => !inside(entry.path))
      .map((entry) => ({ ...entry, pinned: entry.pinned.filter((parent) => !inside(parent.path)) }))
    return { protected: guarded, hidden }
  }
}

function keyOf(guarded: readonly ProtectedEntry[], hidden: readonly HiddenEntry[]): string {
  return `${entriesKey(guarded)}\n--\n${entriesKey(hidden)}`
}
