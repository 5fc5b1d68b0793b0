import { CheckpointError, ContentStore, WorkspaceCheckpoints, type CheckpointSettings } from '../console/checkpoints'
import type { ActionHistoryRecorder } from '../console/action-history-recorder'
import type { SettingsService } from '../console/settings-service'
import type { ActionHooks } from '../core'
import type { Store } from '../store'

/** The tools whose calls can change a workspace: each gets a checkpoint (issue 28). */
const changingTools = new Set(['write_file', 'edit_file', 'run_command', 'run_code', 'run_skill', 'persist_skill'])

/** Tools that change the workspace only sometimes (a `sqlite_query` write): walked after the call only. */
const sometimesChanging = new Set(['sqlite_query'])

const MiB = 1024 * 1024

/** The checkpoint settings as the service reads them (defaults where there is no settings service: tests, the CLI before it opened one). */
export function checkpointSettings(settings: Pick<SettingsService, 'get'> | undefined): () => CheckpointSettings {
  return () => ({
    enabled: settings?.get('checkpoints.enabled') ?? true,
    maxFileBytes: (settings?.get('checkpoints.max_file_mb') ?? 20) * MiB,
    keepDays: settings?.get('checkpoints.keep_days') ?? 30,
    keepCount: settings?.get('checkpoints.keep_count') ?? 1000,
    maxStoreBytes: (settings?.get('checkpoints.max_store_mb') ?? 2048) * MiB
  })
}

/** Builds the checkpoint service over the store; the operator's reverts and restores become history rows through `recorder`. */
export function createCheckpoints(input: {
  store: Store
  directory: string
  settings: Pick<SettingsService, 'get'> | undefined
  workspaceOf: (agentId: string) => string | undefined
  recorder: Pick<ActionHistoryRecorder, 'begin' | 'finish'>
  onRecorded?: (agentId: string) => void
  secretsOf?: (agentId: string) => readonly string[]
  /** Watch workspaces so checkpoints walk only what changed (a long-running host; not a one-shot CLI command). */
  watch?: boolean
}): WorkspaceCheckpoints {
  const content = new ContentStore(input.directory)
  content.open()
  return new WorkspaceCheckpoints({
    repository: input.store.checkpoints,
    store: content,
    settings: checkpointSettings(input.settings),
    workspaceOf: input.workspaceOf,
    watch: input.watch === true,
    onRecorded: (record) => input.onRecorded?.(record.agentId),
    ...(input.secretsOf ? { secretsOf: input.secretsOf } : {}),
    foreignWrites: () => input.store.db.pragma('data_version', { simple: true }) as number,
    onPruned: (agentId, pruned) =>
      input.store.events.append('checkpoint.pruned', { agentId, checkpoints: pruned.map((record) => record.id), oldest: pruned[0]?.createdAt }),
    recordOperatorCall: ({ callId, agentId, tool, target, files, error }) => {
      const at = new Date().toISOString()
      input.recorder.begin({
        callId,
        agentId,
        sessionId: 'operator',
        tool,
        inputSummary: { actor: 'operator', checkpoint: target.id, call: target.callId },
        startedAt: at
      })
      input.recorder.finish({
        callId,
        status: error ? 'error' : 'success',
        finishedAt: new Date().toISOString(),
        durationMs: 0,
        artifacts: [],
        lineage: [],
        resultSummary: { files },
        ...(error ? { error } : {})
      })
    }
  })
}

/**
 * Installs checkpoints as dispatcher hooks: around each call that can change the workspace (a walk
 * before and after; a walk that fails before the run stops the call, since its changes could not be
 * undone), and after every call a note in `meta.workspaceChanged` when the operator reverted or
 * restored the agent's workspace since its last change. Returns the disposer.
 */
export function installCheckpoints(hooks: ActionHooks, checkpoints: WorkspaceCheckpoints): () => void {
  const told = new Map<string, number>()
  const around = hooks.onAroundRun(async ({ tool, agent, callId, decision }) => {
    const always = changingTools.has(tool)
    const vouched = decision?.recoverablePaths ?? []
    if (!checkpoints.enabled()) {
      // Decided as recoverable, then checkpoints were turned off: nothing would keep what it deletes.
      if (vouched.length > 0) throw notRecoverable(vouched, 'checkpoints were turned off since it was decided')
      return undefined
    }
    if (!always && !sometimesChanging.has(tool)) return undefined
    let end: Awaited<ReturnType<WorkspaceCheckpoints['beforeCall']>> | undefined
    if (always) {
      try {
        end = await checkpoints.beforeCall(agent.agentId)
      } catch (error) {
        throw new CheckpointError(
          'checkpoint.unavailable',
          `The call was not run: its workspace's checkpoint could not be taken (${(error as Error).message}), so what it changed could not be undone. The operator can turn checkpoints off (setting checkpoints.enabled).`
        )
      }
      // A deletion let run because the checkpoint could undo it: still so now that the workspace was
      // walked again, and with no other call of the agent changing it meanwhile?
      const lost = vouched.filter((segments) => !checkpoints.recoverable(agent.agentId, segments))
      if (lost.length > 0 || (vouched.length > 0 && checkpoints.othersInFlight(agent.agentId))) {
        await end(callId)
        throw notRecoverable(
          lost.length > 0 ? lost : vouched,
          lost.length > 0 ? 'a file there is over checkpoints.max_file_mb, a link, or not kept' : 'another call of this agent is changing the workspace'
        )
      }
    }
    return async () => {
      const outcome = end ? await end(callId) : await checkpoints.sync(agent.agentId, { kind: 'call', callId })
      if (!outcome?.checkpoint) return undefined
      const { id, files } = outcome.checkpoint
      return {
        meta: { checkpoint: { id, files, ...(outcome.complete ? {} : { complete: false }) } },
        ...(outcome.unstable.length > 0
          ? { diagnostics: [`changed while its checkpoint was taken (content not kept): ${outcome.unstable.slice(0, 5).join(', ')}`] }
          : {})
      }
    }
  })
  const notes = hooks.onPostToolResponse(({ agent, result }) => {
    const { undone, latest } = checkpoints.undoneSince(agent.agentId, told.get(agent.agentId))
    told.set(agent.agentId, latest)
    if (undone.length === 0) return undefined
    const workspaceChanged = undone.map((record) => ({ by: 'operator', action: record.kind, at: record.createdAt, files: record.files, note: record.note }))
    return { ...result, meta: { ...result.meta, workspaceChanged } }
  })
  return () => {
    around()
    notes()
  }
}

/** The refusal of a call decided as a recoverable deletion that no longer is. */
function notRecoverable(paths: readonly (readonly string[])[], why: string): CheckpointError {
  return new CheckpointError(
    'checkpoint.not_recoverable',
    `The call was not run: it deletes ${paths.map((segments) => segments.join('/') || 'the workspace').join(', ')}, which it was let do without asking because the checkpoint could restore it, but that is no longer so (${why}). Call again: it will ask the operator.`
  )
}
