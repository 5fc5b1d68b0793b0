import { z } from 'zod'
import type { ActionAgent, ActionSpec } from '../../core'
import {
  embedTexts,
  vectorCollectionNameSchema,
  vectorFilterSchema,
  vectorKSchema,
  vectorSchema,
  vectorStoreRequirement,
  type Embedder,
  type VectorStore
} from '../../core/live-resources/vector'

/** The longest query text, in characters. */
const maxQueryTextChars = 32 * 1024

/** The input of `vector_search` (SPEC §5.3): a collection, a query vector or text, k (default 10) and a filter. */
export const vectorSearchActionInputSchema = z
  .object({
    collection: vectorCollectionNameSchema,
    vector: vectorSchema.optional(),
    text: z.string().min(1).max(maxQueryTextChars).optional(),
    k: vectorKSchema.default(10),
    filter: vectorFilterSchema.optional()
  })
  .strict()
  .refine((input) => (input.vector === undefined) !== (input.text === undefined), { message: 'give exactly one of vector or text', path: ['vector'] })

/** What `createVectorSearchAction` takes: the embedder the operator configured for `text` queries, if any. */
export type VectorSearchActionOptions = { embedder?: Embedder }

/**
 * Builds `vector_search`: the k nearest items (at most 100) of one of the calling agent's
 * collections, nearest first, with distance and metadata, optionally only items whose top-level
 * metadata equals every key of `filter`. Read-only: its store handle cannot write.
 */
export function createVectorSearchAction(options: VectorSearchActionOptions = {}) {
  // `satisfies`, not a return type: ActionSpec<S>'s function-valued `executionResources` would make
  // the typed spec unassignable to AnyActionSpec (strict function types); this literal's is not.
  return {
    name: 'vector_search',
    description:
      'Find the k nearest items (k ≤ 100, default 10) in one of your vector collections to a query vector (or a text to embed). ' +
      "Optional filter: {key: value} pairs that must equal the items' top-level metadata (strings, numbers, booleans, null). " +
      'Returns items with id, distance (smaller is nearer) and metadata.',
    inputSchema: vectorSearchActionInputSchema,
    effects: 'read',
    executionResources: ({ agent }: { agent: ActionAgent }) => ({ vectors: vectorStoreRequirement(agent.agentId, { readOnly: true }) }),
    summarize(input) {
      return `vector_search ${input.collection} k=${input.k}${input.filter ? ` filter on ${Object.keys(input.filter).join(', ')}` : ''}`
    },
    executor: {
      async execute({ input, resources, handles, signal }) {
        const vector = input.vector ?? (await embedTexts(options.embedder, [input.text!], signal))[0]!
        const store = resources.vectors as VectorStore
        const items = await store.search({ collection: input.collection, vector, k: input.k, ...(input.filter ? { filter: input.filter } : {}) })
        return {
          data: { items },
          meta: {
            provider: { providerId: handles.vectors?.providerId, store: handles.vectors?.meta.store, readOnly: handles.vectors?.meta.readOnly },
            vectorStore: { collection: input.collection, k: input.k, ...(input.vector === undefined ? { embedder: options.embedder?.id } : {}) }
          }
        }
      }
    }
  } satisfies ActionSpec<typeof vectorSearchActionInputSchema>
}

/** `vector_search` as built in: no embedder configured, so queries must give a vector. */
export const vectorSearchAction = createVectorSearchAction()
