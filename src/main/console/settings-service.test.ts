import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openStore } from '../store'
import { SettingsService } from './settings-service'
import { storeEachTest } from '../../../test/support/temp-store'
const fresh = storeEachTest()

describe('SettingsService', () => {
  it('gives the spec defaults before anything is set', () => {
    const settings = new SettingsService(fresh.store.settings)
    expect(settings.get('code_execution.providers')).toEqual(['bubblewrap', 'docker'])
    expect(settings.get('access_control_policy.auto_allow')).toBe(false)
    expect(settings.view('console.port')).toMatchObject({ value: 7410, isDefault: true })
  })

  it('persists a change in the database and notifies subscribers', () => {
    const seen: unknown[] = []
    const settings = new SettingsService(fresh.store.settings)
    settings.subscribe((view) => seen.push([view.key, view.value]))
    settings.set('code_execution.providers', ['docker', { providerId: 'bubblewrap', config: { cpu: 2 } }])
    fresh.store.close()
    fresh.store = openStore(join(fresh.dir.path, 'airlock.db'))
    expect(new SettingsService(fresh.store.settings).get('code_execution.providers')).toEqual(['docker', { providerId: 'bubblewrap', config: { cpu: 2 } }])
    expect(seen).toEqual([['code_execution.providers', ['docker', { providerId: 'bubblewrap', config: { cpu: 2 } }]]])
  })

  it('refuses a value that does not fit the key and keeps the old one', () => {
    const settings = new SettingsService(fresh.store.settings)
    settings.set('console.port', 8000)
    expect(() => settings.set('console.port', -1 as never)).toThrow()
    expect(settings.get('console.port')).toBe(8000)
  })

  it('falls back to the default when a stored value no longer validates', () => {
    fresh.store.settings.write('console.port', 'eighty')
    expect(new SettingsService(fresh.store.settings).view('console.port')).toMatchObject({
      value: 7410,
      isDefault: true
    })
  })

  it('reset forgets the stored value', () => {
    const settings = new SettingsService(fresh.store.settings)
    settings.set('access_control_policy.auto_allow', true)
    expect(settings.reset('access_control_policy.auto_allow')).toMatchObject({ value: false, isDefault: true })
    expect(fresh.store.settings.read('access_control_policy.auto_allow')).toBeUndefined()
  })
})
