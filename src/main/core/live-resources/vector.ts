/**
 * The live resource of `vector_store` handles (SPEC §4, §5.3) as a core contract, so that the
 * `vector_upsert` / `vector_search` actions use it without importing the provider. The provider
 * (`providers/vector-store/`) implements `VectorStore`; both layers validate with these schemas
 * and raise `VectorStoreError`, whose codes reach the agent unchanged.
 */
import { AirlockError } from '@shared/errors'
import { z } from 'zod'
import type { ResourceRequirementInput } from '../types'

/** The bounds of a vector store, enforced at every boundary (schemas below, the store itself). */
export const vectorStoreLimits = {
  maxDimensions: 4096,
  maxIdChars: 256,
  maxMetadataBytes: 16 * 1024,
  maxK: 100,
  maxItemsPerUpsert: 500,
  maxFilterKeys: 16,
  maxFilterStringChars: 1024,
  maxCollections: 256
} as const

/** The largest finite float32: vectors are stored as float32, so a bigger number would become Infinity. */
const float32Max = 3.4028234663852886e38

/** The codes of `VectorStoreError`, without their `vector_store.` prefix. */
export type VectorStoreErrorCode =
  | 'invalid_input'
  | 'dimension_mismatch'
  | 'metric_mismatch'
  | 'unknown_collection'
  | 'too_many_collections'
  | 'read_only'
  | 'closed'
  | 'not_a_vector_store'
  | 'unavailable'
  | 'no_embedder'
  | 'embedder_failed'

/**
 * The error of the vector-store contract: a stable `code` (`vector_store.<name>`) for machines,
 * a message naming the field for people. Thrown by the store and by the vector actions.
 */
export class VectorStoreError extends AirlockError<`vector_store.${VectorStoreErrorCode}`> {
  constructor(code: VectorStoreErrorCode, message: string, data: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(`vector_store.${code}`, message, data, options)
  }
}

/** A collection name: a slug (it names a table family inside the store, never interpolated as given). */
export const vectorCollectionNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be a slug: lowercase letters, digits, _ and -, at most 63 characters, starting with a letter or digit')

/** An item id: any non-empty string of at most 256 characters. */
export const vectorItemIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(vectorStoreLimits.maxIdChars, `must be at most ${vectorStoreLimits.maxIdChars} characters`)

/** A vector: 1–4096 finite numbers that fit a float32. The collection decides the exact dimension. */
export const vectorSchema = z
  .array(z.number().refine((x) => Math.abs(x) <= float32Max, 'must fit a 32-bit float'))
  .min(1, 'must have at least one dimension')
  .max(vectorStoreLimits.maxDimensions, `must have at most ${vectorStoreLimits.maxDimensions} dimensions`)

/** Metadata: a JSON object whose JSON text is at most 16 KiB (UTF-8). */
export const vectorMetadataSchema = z.record(z.string(), z.json()).superRefine((value, ctx) => {
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8')
  if (bytes > vectorStoreLimits.maxMetadataBytes)
    ctx.addIssue({ code: 'custom', message: `must be at most ${vectorStoreLimits.maxMetadataBytes} bytes as JSON (it is ${bytes})` })
})

/** A filter value: a JSON scalar, compared by type and value (1 matches 1.0, never true or "1"). */
export const vectorFilterValueSchema = z.union([z.string().max(vectorStoreLimits.maxFilterStringChars), z.number(), z.boolean(), z.null()])

/**
 * A metadata filter: every key must equal its value in an item's top-level metadata (AND of
 * equalities). A `null` value matches a key whose value is JSON null, not a missing key.
 */
export const vectorFilterSchema = z
  .record(z.string().min(1).max(vectorStoreLimits.maxIdChars), vectorFilterValueSchema)
  .refine((filter) => Object.keys(filter).length <= vectorStoreLimits.maxFilterKeys, `must have at most ${vectorStoreLimits.maxFilterKeys} keys`)

/** How distances are measured in a collection, fixed when it is created (`l2`: Euclidean; `cosine`: 1 − cosine similarity). */
export const vectorMetricSchema = z.enum(['l2', 'cosine'])

/** The k of a search: 1 to 100 nearest items. */
export const vectorKSchema = z.number().int().min(1).max(vectorStoreLimits.maxK)

/** One item to upsert: it replaces the item with the same id (vector and metadata, whole). */
export const vectorItemSchema = z.object({ id: vectorItemIdSchema, vector: vectorSchema, metadata: vectorMetadataSchema.optional() }).strict()

/** An upsert's shape with items of `item`: a collection, 1 to `maxItemsPerUpsert` items, the metric of a new collection. */
export function vectorUpsertShape<Item extends z.ZodTypeAny>(item: Item) {
  return z
    .object({
      collection: vectorCollectionNameSchema,
      items: z.array(item).min(1).max(vectorStoreLimits.maxItemsPerUpsert),
      metric: vectorMetricSchema.optional()
    })
    .strict()
}

/** What `VectorStore.upsert` takes: items with distinct ids; `metric` applies when the call creates the collection. */
export const vectorUpsertInputSchema = vectorUpsertShape(vectorItemSchema).superRefine((input, ctx) => duplicateIds(input.items, ctx))

/** What `VectorStore.search` takes. */
export const vectorSearchInputSchema = z
  .object({ collection: vectorCollectionNameSchema, vector: vectorSchema, k: vectorKSchema, filter: vectorFilterSchema.optional() })
  .strict()

/** What `VectorStore.delete` takes. */
export const vectorDeleteInputSchema = z
  .object({ collection: vectorCollectionNameSchema, ids: z.array(vectorItemIdSchema).min(1).max(vectorStoreLimits.maxItemsPerUpsert) })
  .strict()

/** An item to upsert. */
export type VectorItem = z.infer<typeof vectorItemSchema>
/** A metadata filter (equality on top-level keys). */
export type VectorFilter = z.infer<typeof vectorFilterSchema>
/** A collection's distance metric. */
export type VectorMetric = z.infer<typeof vectorMetricSchema>
/** Input of `VectorStore.upsert`. */
export type VectorUpsertInput = z.infer<typeof vectorUpsertInputSchema>
/** Input of `VectorStore.search`. */
export type VectorSearchInput = z.infer<typeof vectorSearchInputSchema>
/** Input of `VectorStore.delete`. */
export type VectorDeleteInput = z.infer<typeof vectorDeleteInputSchema>

/** One search hit: the item's id, its distance to the query (smaller is nearer) and its metadata. */
export type VectorMatch = { id: string; distance: number; metadata: Record<string, unknown> }

/** A collection as the store describes it. */
export type VectorCollectionInfo = { name: string; dimension: number; metric: VectorMetric; count: number }

/** What an upsert did: the ids written (in input order) and whether this call created the collection. */
export type VectorUpsertResult = { ids: string[]; created: boolean; dimension: number; metric: VectorMetric }

/**
 * The live resource of `vector_store` handles: the collections of one store. Every method
 * validates its input and throws `VectorStoreError` (field named) on bad input or state.
 */
export interface VectorStore {
  /** Creates the collection on first use (dimension from the items), then inserts or replaces each item by id. */
  upsert(input: VectorUpsertInput): Promise<VectorUpsertResult>
  /** The k nearest items to `vector`, nearest first, among those matching `filter`. */
  search(input: VectorSearchInput): Promise<VectorMatch[]>
  /** Deletes items by id; answers the ids that existed. */
  delete(input: VectorDeleteInput): Promise<{ deleted: string[] }>
  /** The store's collections, by name. */
  collections(): Promise<VectorCollectionInfo[]>
}

/**
 * Turns texts into vectors (an HTTP embedding endpoint or an MCP tool the operator configured,
 * SPEC §5.3). Airlock ships none yet; the vector actions take one when built.
 */
export type Embedder = {
  /** What the operator configured (shown in results), e.g. `ollama:nomic-embed-text`. */
  readonly id: string
  embed(texts: string[], signal: AbortSignal): Promise<number[][]>
}

/**
 * Embeds `texts` with `embedder`, or fails with `vector_store.no_embedder` when none is configured;
 * what the embedder returns is checked (one finite vector per text) like any other input.
 */
export async function embedTexts(embedder: Embedder | undefined, texts: string[], signal: AbortSignal): Promise<number[][]> {
  if (!embedder) {
    throw new VectorStoreError('no_embedder', 'No embedder is configured for this agent, so text cannot be turned into vectors: give a vector instead of text.')
  }
  let vectors: unknown
  try {
    vectors = await embedder.embed(texts, signal)
  } catch (error) {
    throw new VectorStoreError(
      'embedder_failed',
      `The embedder ${embedder.id} failed: ${(error as Error).message}`,
      { embedder: embedder.id },
      { cause: error }
    )
  }
  const parsed = z.array(vectorSchema).length(texts.length).safeParse(vectors)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${['vectors', ...issue.path.map(String)].join('.')}: ${issue.message}`).join('; ')
    throw new VectorStoreError('embedder_failed', `The embedder ${embedder.id} returned unusable vectors: ${issues}.`, { embedder: embedder.id })
  }
  return parsed.data
}

/**
 * The requirement for an agent's own store: the provider keeps it under the Airlock home, keyed
 * by the agent id (never in the sandbox-writable workspace). `readOnly` handles cannot write.
 */
export function vectorStoreRequirement(agentId: string, options: { readOnly: boolean }): ResourceRequirementInput {
  return { kind: 'vector_store', config: { store: agentId }, policy: { readOnly: options.readOnly } }
}

function duplicateIds(items: readonly { id: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>()
  for (const [index, item] of items.entries()) {
    if (seen.has(item.id)) ctx.addIssue({ code: 'custom', path: ['items', index, 'id'], message: `duplicate id ${JSON.stringify(item.id)} in one call` })
    seen.add(item.id)
  }
}
