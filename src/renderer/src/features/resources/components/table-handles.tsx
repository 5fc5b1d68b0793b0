import type { ResourceHandleView } from '@shared/resources'
import { useEffect, useState } from 'react'
import { ageOf } from '../lib/resource-format'
import { useResourcesStore } from '../store/resources-store'

/** The live handles: what is running for whom, through which provider, and a release button. */
export function TableHandles({ handles }: { handles: ResourceHandleView[] }) {
  const release = useResourcesStore((state) => state.release)
  const checkHealth = useResourcesStore((state) => state.checkHealth)
  const health = useResourcesStore((state) => state.health)
  const now = useNow(5000)
  return (
    <table className="table" data-testid="table-handles">
      <thead>
        <tr>
          <th>Kind</th>
          <th>Scope · owner</th>
          <th>Provider</th>
          <th className="numeric">Refs</th>
          <th>Status</th>
          <th>Age</th>
          <th aria-label="Actions" />
        </tr>
      </thead>
      <tbody>
        {handles.map((handle) => (
          <tr key={handle.handleId} data-testid={`handle-${handle.handleId}`}>
            <td>
              <code>{handle.kind}</code>
              <div className="cell-sub" title={handle.handleId}>
                {handle.resourceKey}
              </div>
            </td>
            <td>
              {handle.scope}
              <div className="cell-sub">{handle.ownerId ?? '—'}</div>
            </td>
            <td>
              {handle.providerId}
              {handle.meta.preferenceFallback === true && <div className="cell-sub warning">isolation fallback</div>}
            </td>
            <td className="numeric">{handle.refCount}</td>
            <td>
              <span className={`status status-${handle.status}`}>{handle.status}</span>
              {typeof handle.meta.cleanupError === 'string' && <div className="cell-sub field-error">{handle.meta.cleanupError}</div>}
              {health[handle.handleId] && <div className="cell-sub">health: {health[handle.handleId]}</div>}
            </td>
            <td>{ageOf(handle.createdAt, now)}</td>
            <td className="actions">
              <button type="button" className="button-secondary" onClick={() => void checkHealth(handle.handleId)}>
                Check
              </button>
              <button type="button" className="button-danger" data-testid={`release-${handle.handleId}`} onClick={() => void release(handle.handleId)}>
                Release
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs)
    return () => clearInterval(timer)
  }, [intervalMs])
  return now
}
