import { useEffect } from 'react'
import { useShallow } from 'zustand/react/shallow'
import '../system.css'
import { useSystemStore } from '../store/system-store'

/** The sidebar footer: version, transport and data directory of this Airlock. */
export function SystemFooter() {
  const { info, error } = useSystemStore(useShallow((state) => ({ info: state.info, error: state.error })))
  const load = useSystemStore((state) => state.load)
  useEffect(() => {
    void load()
  }, [load])
  if (error) return <footer className="system-footer sys-error">{error}</footer>
  if (!info) return <footer className="system-footer" />
  return (
    <footer className="system-footer" data-testid="system-footer">
      <div>
        v{info.appVersion} · {info.transport === 'electron' ? 'desktop' : 'web console'}
      </div>
      <div className="system-home" title={`${info.home} (database ${info.databasePath})`}>
        {info.home}
      </div>
    </footer>
  )
}
