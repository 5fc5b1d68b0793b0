import type Docker from 'dockerode'
import {
  entriesKey,
  entryChain,
  gitPointer,
  hiddenEntries,
  protectedEntries,
  watchProtected,
  type ProtectedWatch,
  type WorkspaceEntry
} from '../../core/sandbox/workspace-entries'
import { DockerProviderError } from './docker-errors'
import { isHostKeptAreas, isLexicallyInside, type MountedRoot } from './mounted-roots'

/**
 * What a session container mounts over the workspace it binds whole, as bubblewrap does
 * (protected-binds.ts, `SandboxPlan.hidden`): each protected path read-only over itself, each
 * hidden (labelled) entry under an empty read-only tmpfs or `/dev/null`, and the folders above
 * either pinned (bound over themselves, so a rename fails with EBUSY and neither a protected path
 * nor a label can be moved off its entry), as is a `.git` folder. Docker binds by path, so after
 * the container starts `assertMounted` proves from inside it that each protected or pinned path
 * is the very entry checked here and each hidden one is not; the set is fixed when the container
 * is made, and `changed` tells the health check when what exists now differs (a run made
 * `.git`), so the next run gets a fresh container that covers it.
 */
export class WorkspaceMounts {
  private readonly mounts: Map<string, PlannedMount>
  private readonly key: string

  constructor(
    private readonly roots: readonly MountedRoot[],
    private readonly policy: { protectedPaths?: string[]; hiddenPaths?: string[] }
  ) {
    this.mounts = this.plan()
    this.key = keyOf(this.mounts)
  }

  /** True when the protected or hidden entries that exist now are not the ones this container mounted. */
  changed(): boolean {
    return keyOf(this.plan()) !== this.key
  }

  /** What each protected path is now (a run starts), for `quarantineChanged` once it is over. */
  watch(): ProtectedWatch[] {
    return watchProtected(this.workspaces(), this.policy.protectedPaths)
  }

  /** The container's extra binds (after the roots') and tmpfs mounts: one per path (the engine refuses two). */
  hostConfig(): { binds: string[]; mounts: Docker.MountSettings[] } {
    const binds: string[] = []
    const mounts: Docker.MountSettings[] = []
    for (const { entry, kind } of this.mounts.values()) {
      if (kind === 'pin') binds.push(`${entry.path}:${entry.path}:rw`)
      else if (kind === 'read-only') binds.push(`${entry.path}:${entry.path}:ro`)
      else if (entry.directory) mounts.push({ Type: 'tmpfs', Source: '', Target: entry.path, ReadOnly: true, TmpfsOptions: { SizeBytes: 4096, Mode: 0o755 } })
      else binds.push(`/dev/null:${entry.path}:ro`)
    }
    return { binds, mounts }
  }

  /** The paths the in-container identity probe stats, after the roots'. */
  probePaths(): string[] {
    return [...this.mounts.keys()]
  }

  /**
   * Compares what the container sees (the probe's lines after the roots') with what was checked:
   * a protected entry or pinned folder must be the very one (device and inode), a hidden one must
   * not be (something covers it). Throws `docker.mount_mismatch`.
   */
  assertMounted(seen: readonly string[]): void {
    ;[...this.mounts.values()].forEach(({ entry, kind }, index) => {
      const expected = `${entry.dev} ${entry.ino}`
      const saw = seen[index]?.trim()
      const hidden = kind === 'hidden'
      if (hidden ? saw === expected || !saw : saw !== expected) {
        throw new DockerProviderError(
          'docker.mount_mismatch',
          `The container does not see ${hidden ? 'a hidden (labelled) entry covered' : 'the protected entry Airlock checked'} at ${entry.path} (host device/inode ${expected}, the container saw ${saw || 'nothing'}). It was removed; the workspace may have changed while the container started.`,
          { path: entry.path }
        )
      }
    })
  }

  private workspaces(): MountedRoot[] {
    return this.roots.filter((root) => !isHostKeptAreas(root.path))
  }

  /**
   * Each path's one mount: hidden over read-only over pinned; nothing inside a hidden folder (the
   * engine could not make a mount point in a read-only tmpfs, and nothing there is seen anyway).
   */
  private plan(): Map<string, PlannedMount> {
    const planned = new Map<string, PlannedMount>()
    const put = (entry: WorkspaceEntry, kind: PlannedMount['kind']) => {
      const current = planned.get(entry.path)
      if (!current || strength[kind] > strength[current.kind]) planned.set(entry.path, { entry, kind })
    }
    for (const root of this.workspaces()) {
      for (const entry of protectedEntries(root.path, this.policy.protectedPaths)) {
        for (const parent of entry.pinned) put(parent, 'pin')
        put(entry, 'read-only')
      }
      for (const entry of hiddenEntries(root.path, this.policy.hiddenPaths)) {
        for (const parent of entry.pinned) put(parent, 'pin')
        put(entry, 'hidden')
      }
      // A `.git` folder is pinned (a run cannot swap it for a pointer of its own); a pointer file is protected above.
      const git = entryChain(root.path, gitPointer)
      if (git?.[0]?.directory) put(git[0], 'pin')
    }
    const hiddenFolders = [...planned.values()].filter(({ entry, kind }) => kind === 'hidden' && entry.directory).map(({ entry }) => entry.path)
    for (const path of planned.keys()) if (hiddenFolders.some((folder) => folder !== path && isLexicallyInside(folder, path))) planned.delete(path)
    // Outer paths first: the probe's order, and the engine's.
    return new Map([...planned].sort(([a], [b]) => a.split('/').length - b.split('/').length))
  }
}

type PlannedMount = { entry: WorkspaceEntry; kind: 'pin' | 'read-only' | 'hidden' }

const strength: Record<PlannedMount['kind'], number> = { pin: 0, 'read-only': 1, hidden: 2 }

function keyOf(mounts: ReadonlyMap<string, PlannedMount>): string {
  return [...mounts.values()].map(({ entry, kind }) => `${kind}:${entriesKey([entry])}`).join('\n')
}
