import type { Database } from 'better-sqlite3'
import { openDatabase, type OpenDatabaseOptions } from './database'
import { EventRepository } from './event-repository'
import { HandleRepository } from './handle-repository'
import { SettingsRepository } from './settings-repository'

export { openDatabase, latestSchemaVersion } from './database'
export { migrations, type Migration } from './migrations'
export { StoreError, type StoreErrorCode } from './store-error'
export { SettingsRepository } from './settings-repository'
export { EventRepository, type StoredEvent } from './event-repository'
export { HandleRepository } from './handle-repository'

/** The opened store: the database and one repository per table in use. */
export type Store = {
  readonly db: Database
  readonly settings: SettingsRepository
  readonly events: EventRepository
  readonly handles: HandleRepository
  close(): void
}

/** Opens the database at `file` (migrating it) and builds the repositories over it. */
export function openStore(file: string, options: OpenDatabaseOptions = {}): Store {
  const db = openDatabase(file, options)
  return {
    db,
    settings: new SettingsRepository(db),
    events: new EventRepository(db),
    handles: new HandleRepository(db),
    close: () => db.close()
  }
}
