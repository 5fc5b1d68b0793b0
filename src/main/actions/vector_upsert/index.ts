// The `vector_upsert` tool (SPEC §5.3).
export {
  createVectorUpsertAction,
  maxEmbedTextChars,
  vectorUpsertAction,
  vectorUpsertActionInputSchema,
  type VectorUpsertActionOptions
} from './vector-upsert-action'
