import { FolderOpen } from 'lucide-react'
import { useEffect } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { CopyButton, ErrorBanner, Loading } from '../../../ui'
import { useSystemStore } from '../store/system-store'
import '../system.css'

/** Where this Airlock keeps its data (system.info): the home directory and its database, each with copy. */
export function PanelDataDirectory() {
  const { info, error } = useSystemStore(useShallow((state) => ({ info: state.info, error: state.error })))
  const load = useSystemStore((state) => state.load)
  useEffect(() => {
    if (!info) void load()
  }, [info, load])
  if (error) return <ErrorBanner message={`Could not read the system facts: ${error}`} onRetry={() => void load()} />
  if (!info) return <Loading label="Reading the data directory…" />
  return (
    <dl className="sys-paths" data-testid="setting-data-directory">
      <div className="sys-path">
        <dt>
          <FolderOpen size={14} aria-hidden="true" /> Home (AIRLOCK_HOME)
        </dt>
        <dd>
          <code data-testid="setting-data-directory-home">{info.home}</code>
          <CopyButton text={info.home} label="Copy path" />
        </dd>
      </div>
      <div className="sys-path">
        <dt>Database</dt>
        <dd>
          <code>{info.databasePath}</code>
          <CopyButton text={info.databasePath} label="Copy path" />
        </dd>
      </div>
      <div className="sys-path">
        <dt>Running</dt>
        <dd className="sys-running">
          Airlock {info.appVersion} · {info.transport === 'electron' ? 'desktop app' : 'web console'} · {info.platform} · Node {info.nodeVersion}
        </dd>
      </div>
    </dl>
  )
}
