// `sqlite_query` (SPEC §5.3): one SQL statement on a database inside the agent's workspace.
export { createSqliteQueryAction, sqliteQueryAction, sqliteQueryInputSchema, type SqliteQueryData, type SqliteQueryInput } from './sqlite-query-action'
export { DatabasePathError, type DatabaseLocation } from './database-file'
export type { SqliteWritePolicy } from './write-permission'
