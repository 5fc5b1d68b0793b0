import { useEffect } from 'react'
import { ViewHeader } from '../../../app/view-header'
import { useSettingsStore } from '../store/settings-store'
import { FieldSetting } from './field-setting'

/** The Settings view: every setting with its editor; main validates each change. */
export function SettingsView() {
  const { settings, status, loadError, load } = useSettingsStore()
  useEffect(() => {
    if (status === 'idle') void load()
  }, [status, load])
  return (
    <>
      <ViewHeader title="Settings" subtitle="Stored in this Airlock home's database; changes apply at once." />
      {status === 'error' && (
        <div className="banner banner-error" role="alert">
          Could not load settings: {loadError}
        </div>
      )}
      <section className="settings-list">
        {settings.map((setting) => (
          <FieldSetting key={setting.key} setting={setting} />
        ))}
      </section>
    </>
  )
}
