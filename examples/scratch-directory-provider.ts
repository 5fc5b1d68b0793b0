// An example provider for integrators: kind `scratch_directory`, a private temporary directory.
// It shows the whole contract: probe (can we create directories here?), ensure (make one),
// healthCheck (is it still there and ours?), release (remove it; may throw, the manager
// quarantines). Run its test: `npx vitest run examples`.
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import type { ExecutionResourceProvider, ProviderProbe, ResourceHandle, ResourceStatus } from '../src/main/core'

/** The config this provider accepts; anything else is refused with the field named. */
const configSchema = z
  .object({
    parent: z.string().min(1).optional(),
    prefix: z
      .string()
      .regex(/^[a-z0-9-]{1,32}$/)
      .optional()
  })
  .strict()

/** The live resource of a `scratch_directory` handle. */
export type ScratchDirectory = { path: string }

/** A provider of private scratch directories under a parent folder (default: the OS temp dir). */
export class ScratchDirectoryProvider implements ExecutionResourceProvider {
  readonly providerId = 'scratch_directory'
  readonly supportedKinds = ['scratch_directory'] as const

  async probe({ requirement }: Parameters<ExecutionResourceProvider['probe']>[0]): Promise<ProviderProbe> {
    const config = configSchema.safeParse(requirement.config ?? {})
    if (!config.success) return { available: false, reason: `invalid config: ${config.error.issues[0]?.path.join('.')} ${config.error.issues[0]?.message}` }
    const parent = config.data.parent ?? tmpdir()
    try {
      if (!(await stat(parent)).isDirectory()) return { available: false, reason: `${parent} is not a directory` }
    } catch {
      return { available: false, reason: `${parent} does not exist` }
    }
    return { available: true, capabilities: { parent } }
  }

  async ensure({ requirement }: Parameters<ExecutionResourceProvider['ensure']>[0]) {
    const config = configSchema.parse(requirement.config ?? {})
    const path = await mkdtemp(join(config.parent ?? tmpdir(), `${config.prefix ?? 'airlock-scratch'}-`))
    const resource: ScratchDirectory = { path }
    return { resource, meta: { path } }
  }

  async healthCheck(handle: ResourceHandle): Promise<ResourceStatus> {
    try {
      return (await stat((handle.resource as ScratchDirectory).path)).isDirectory() ? 'ready' : 'unhealthy'
    } catch {
      return 'unhealthy'
    }
  }

  async release(handle: ResourceHandle): Promise<void> {
    // Already gone counts as released: release must be safe to retry.
    await rm((handle.resource as ScratchDirectory).path, { recursive: true, force: true })
  }
}
