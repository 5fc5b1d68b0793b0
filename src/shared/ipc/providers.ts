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

/** An Airlock image in the Docker engine (SPEC §4 docker provider). */
export const airlockImageSchema = z.object({
  id: z.string(),
  tags: z.array(z.string()),
  languages: z.array(z.string()),
  sizeBytes: z.number(),
  created: z.string()
})

/** The Docker engine and its Airlock images; `engine.reason` says why it is unavailable and `languages` what can be provisioned. */
export const providerImagesSchema = z.object({
  engine: z.object({ ok: z.boolean(), reason: z.string().optional() }),
  images: z.array(airlockImageSchema),
  languages: z.array(z.string()),
  /** The language being provisioned right now, if any (one at a time). */
  provisioning: z.string().optional()
})

/** The `providers` namespace: registered providers and what their probes say here. */
export const providersContract = {
  calls: {
    list: {
      input: z.object({}).strict(),
      output: z.object({ providers: z.array(providerViewSchema), codeExecutionOrder: z.array(z.string()) })
    },
    images: { input: z.object({}).strict(), output: providerImagesSchema },
    /**
     * Starts provisioning an image for a language (offline: built here from Debian packages, no
     * registry). Returns at once; `imageProgress` events follow, the last with percent 100 or a
     * stage starting with `failed:`.
     */
    provisionImage: {
      input: z.object({ language: z.string().min(1).max(40), offline: z.boolean().optional() }).strict(),
      output: z.object({ started: z.literal(true) })
    }
  },
  events: {
    /** Progress of an image pull or offline provisioning (the view shows a progress bar). */
    imageProgress: { payload: z.object({ image: z.string(), stage: z.string(), percent: z.number().min(0).max(100).optional() }) }
  }
} satisfies NamespaceSpec
