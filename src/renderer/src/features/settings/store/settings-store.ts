import { airlock } from '../../../lib/airlock-client'
import { followHost } from '../../../lib/follow-host'
import { createSettingsStore, settingsFeed } from './settings-state'

/** The settings store of this console; main owns the data, this mirrors it and follows `settings.changed`. */
export const useSettingsStore = createSettingsStore(airlock)

followHost(useSettingsStore, settingsFeed(airlock))
