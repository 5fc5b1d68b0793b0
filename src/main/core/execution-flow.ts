import { randomUUID } from 'node:crypto'
import type { ExecutionResourceManager } from './manager'
import type { ResourceHandle, ResourceRequirementInput } from './types'
import { ExecutionResourceError } from './errors'

/** What an execution is built from: managed requirements by name, and unmanaged runtime objects by name. */
export type ExecutionOptions = {
  manager: ExecutionResourceManager
  /** Requirements the execution manages: declared at start, ensured on first use, released at close. */
  executionResources?: Record<string, ResourceRequirementInput>
  /** Objects the caller owns (a client, a logger...): handed to steps as they are, never released. */
  runtimeResources?: Record<string, unknown>
  executionId?: string
}

/** A running execution: steps ask for resources by name; close releases what it manages. */
export type Execution = {
  readonly executionId: string
  /** Declares the managed requirements (scope `execution`, owner = execution id). Starts nothing. */
  start(): void
  /** The live resource named `key`: a managed one is ensured on first use; a runtime one is returned as is. */
  requireResource<T = unknown>(key: string): Promise<T>
  /** The handle of a managed resource, once ensured. */
  handleOf(key: string): ResourceHandle | undefined
  /** Releases every managed handle of this execution; runtime resources are untouched. */
  close(): Promise<void>
}

/**
 * Creates an execution (the TriggerFlow-like surface of SPEC §3): managed requirements are forced
 * to scope `execution` with the execution id as owner, so `close()` ends them all through
 * `releaseScope`, whatever steps did with them.
 */
export function createExecution(options: ExecutionOptions): Execution {
  const executionId = options.executionId ?? `execution:${randomUUID()}`
  const managed = options.executionResources ?? {}
  const runtime = options.runtimeResources ?? {}
  const requirementIds = new Map<string, string>()
  const handles = new Map<string, Promise<ResourceHandle>>()
  let state: 'new' | 'running' | 'closed' = 'new'

  const assertRunning = () => {
    if (state === 'new') throw new ExecutionResourceError('invalid_state', `Execution ${executionId} has not started.`, { executionId })
    if (state === 'closed') throw new ExecutionResourceError('invalid_state', `Execution ${executionId} is closed.`, { executionId })
  }

  return {
    executionId,
    start() {
      if (state !== 'new') throw new ExecutionResourceError('invalid_state', `Execution ${executionId} was already started.`, { executionId })
      for (const [key, requirement] of Object.entries(managed)) {
        const declared = options.manager.declare({ ...requirement, scope: 'execution', ownerId: executionId })
        requirementIds.set(key, declared.requirementId)
      }
      state = 'running'
    },
    async requireResource<T>(key: string): Promise<T> {
      assertRunning()
      if (Object.hasOwn(runtime, key)) return runtime[key] as T
      const requirementId = requirementIds.get(key)
      if (!requirementId)
        throw new ExecutionResourceError('invalid_argument', `Execution ${executionId} has no resource named ${JSON.stringify(key)}.`, { executionId, key })
      let pending = handles.get(key)
      if (!pending) {
        pending = options.manager.ensure(requirementId, { scope: 'execution', ownerId: executionId })
        handles.set(key, pending)
        pending.catch(() => handles.delete(key))
      }
      return (await pending).resource as T
    },
    handleOf(key) {
      const id = [...options.manager.list({ scope: 'execution', ownerId: executionId })].find((h) => h.requirementId === requirementIds.get(key))
      return id
    },
    async close() {
      if (state === 'closed') return
      state = 'closed'
      await Promise.allSettled(handles.values())
      await options.manager.releaseScope('execution', executionId)
    }
  }
}
