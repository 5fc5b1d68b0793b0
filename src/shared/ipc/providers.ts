import { z } from 'zod'
import { isolationFactsSchema } from '../resources'
import type { NamespaceSpec } from './contract'

/** What a provider's probe said for one kind on this machine. */
export const providerKindProbeSchema = z.object({
  kind: z.string(),
  probed: z.boolean(),
  available: z.boolean(),
  reason: z.string().optional(),
  isolation: isolationFactsSchema.optional(),
  toolchains: z.record(z.string(), z.object({ available: z.boolean(), version: z.string().optional() })).optional(),
  limits: z.record(z.string(), z.string()).optional(),
  diagnostics: z.array(z.string()).optional()
})

/** A registered provider and its probes. */
export const providerViewSchema = z.object({
  providerId: z.string(),
  kinds: z.array(z.string()),
  probes: z.array(providerKindProbeSchema)
})

/** A provider as the Providers view shows it. */
export type ProviderView = z.infer<typeof providerViewSchema>

/** The `providers` namespace: registered providers and what their probes say here. */
export const providersContract = {
  calls: {
    list: {
      input: z.object({}).strict(),
      output: z.object({ providers: z.array(providerViewSchema), codeExecutionOrder: z.array(z.string()) })
    }
  },
  events: {
    /** Progress of an image pull or offline provisioning (the view shows a progress bar). */
    imageProgress: { payload: z.object({ image: z.string(), stage: z.string(), percent: z.number().min(0).max(100).optional() }) }
  }
} satisfies NamespaceSpec
