import { z } from 'zod'
import type { ActionAgent, ActionSpec } from '../../core'
import {
  embedTexts,
  vectorItemIdSchema,
  vectorMetadataSchema,
  vectorSchema,
  vectorStoreRequirement,
  vectorUpsertShape,
  type Embedder,
  type VectorStore
} from '../../core/live-resources/vector'

/** The longest text one item may give for embedding, in characters. */
export const maxEmbedTextChars = 32 * 1024

const itemSchema = z
  .object({
    id: vectorItemIdSchema,
    vector: vectorSchema.optional(),
    text: z.string().min(1).max(maxEmbedTextChars).optional(),
    metadata: vectorMetadataSchema.optional()
  })
  .strict()
  .refine((item) => (item.vector === undefined) !== (item.text === undefined), { message: 'give exactly one of vector or text', path: ['vector'] })

/** The input of `vector_upsert` (SPEC §5.3): a collection and the items to insert or replace by id. */
export const vectorUpsertActionInputSchema = vectorUpsertShape(itemSchema)

/** What `createVectorUpsertAction` takes: the embedder the operator configured for `text` items, if any. */
export type VectorUpsertActionOptions = { embedder?: Embedder }

/**
 * Builds `vector_upsert`: inserts or replaces items by id in one of the calling agent's
 * collections (created by the first upsert, with the first item's dimension). Items give a
 * `vector`, or `text` when an embedder is configured; without one, `text` fails with
 * `vector_store.no_embedder`. The store is the agent's own (the provider keeps it per agent id).
 */
export function createVectorUpsertAction(options: VectorUpsertActionOptions = {}) {
  // `satisfies`, not a return type: ActionSpec<S>'s function-valued `executionResources` would make
  // the typed spec unassignable to AnyActionSpec (strict function types); this literal's is not.
  return {
    name: 'vector_upsert',
    description:
      'Insert or replace items (by id) in one of your vector collections. Each item has an id, a vector (numbers) or a text to embed, and optional JSON metadata. ' +
      'The first upsert creates the collection with that vector dimension; later vectors must match it. Returns the ids written.',
    inputSchema: vectorUpsertActionInputSchema,
    effects: 'write',
    executionResources: ({ agent }: { agent: ActionAgent }) => ({ vectors: vectorStoreRequirement(agent.agentId, { readOnly: false }) }),
    summarize(input) {
      return `vector_upsert ${input.collection}: ${input.items.length} item${input.items.length === 1 ? '' : 's'}`
    },
    executor: {
      async execute({ input, resources, handles, signal }) {
        const texts = input.items.flatMap((item) => (item.vector === undefined && item.text !== undefined ? [item.text] : []))
        const embedded = texts.length > 0 ? await embedTexts(options.embedder, texts, signal) : []
        let next = 0
        const items = input.items.map((item) => ({
          id: item.id,
          vector: item.vector ?? embedded[next++]!,
          ...(item.metadata ? { metadata: item.metadata } : {})
        }))
        const store = resources.vectors as VectorStore
        const result = await store.upsert({ collection: input.collection, items, ...(input.metric ? { metric: input.metric } : {}) })
        return {
          data: { ids: result.ids },
          meta: {
            provider: { providerId: handles.vectors?.providerId, store: handles.vectors?.meta.store, readOnly: handles.vectors?.meta.readOnly },
            vectorStore: {
              collection: input.collection,
              created: result.created,
              dimension: result.dimension,
              metric: result.metric,
              ...(texts.length > 0 ? { embedder: options.embedder?.id } : {})
            }
          }
        }
      }
    }
  } satisfies ActionSpec<typeof vectorUpsertActionInputSchema>
}

/** `vector_upsert` as built in: no embedder configured, so items must give vectors. */
export const vectorUpsertAction = createVectorUpsertAction()
