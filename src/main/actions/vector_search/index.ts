// The `vector_search` tool (SPEC §5.3).
export { createVectorSearchAction, vectorSearchAction, vectorSearchActionInputSchema, type VectorSearchActionOptions } from './vector-search-action'
