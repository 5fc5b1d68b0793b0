import { useEffect } from 'react'
import { useSystemStore } from '../store/system-store'

/** The sidebar footer: version, transport and data directory of this Airlock. */
export function SystemFooter() {
  const { info, error, load } = useSystemStore()
  useEffect(() => {
    void load()
  }, [load])
  if (error) return <footer className="system-footer field-error">{error}</footer>
  if (!info) return <footer className="system-footer" />
  return (
    <footer className="system-footer" data-testid="system-footer">
      <div>
        v{info.appVersion} · {info.transport === 'electron' ? 'desktop' : 'web console'}
      </div>
      <div className="system-home" title={info.databasePath}>
        {info.home}
      </div>
    </footer>
  )
}
