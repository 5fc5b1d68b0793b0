import type { ResourceHandleView } from '@shared/resources'
import { Activity, Power } from 'lucide-react'
import { useShallow } from 'zustand/react/shallow'
import { visibleText } from '@shared/visible-text'
import { Badge, Button, Table, TextAgent, useNow, type TableColumn } from '../../../ui'
import { ageOf } from '../lib/resource-format'
import { handleTone } from '../lib/handle-facts'
import { useResourcesStore } from '../store/resources-store'

const columns: TableColumn[] = [
  { label: 'Kind' },
  { label: 'Agent · scope' },
  { label: 'Provider' },
  { label: 'Refs', numeric: true },
  { label: 'Status' },
  { label: 'Age', numeric: true },
  { label: 'Actions', hidden: true }
]

/** The live handles: what runs for whom, through which provider, how many holders, and release. */
export function TableHandles({ handles, onRelease }: { handles: ResourceHandleView[]; onRelease(handle: ResourceHandleView): void }) {
  const { health, releasing } = useResourcesStore(useShallow((state) => ({ health: state.health, releasing: state.releasing })))
  const checkHealth = useResourcesStore((state) => state.checkHealth)
  const now = useNow(5000)
  return (
    <div className="res-table-wrap">
      <Table columns={columns} caption="Live execution resources" className="res-table" testId="table-handles">
        {handles.map((handle) => (
          <tr key={handle.handleId} data-testid={`resource-row-${handle.handleId}`}>
            <td>
              <code className="res-kind">{handle.kind}</code>
              <div className="res-sub" title={visibleText(`resource key ${handle.resourceKey} · handle ${handle.handleId}`)}>
                <TextAgent text={`${handle.resourceKey !== handle.kind ? `${handle.resourceKey} · ` : ''}#${handle.handleId.slice(0, 8)}`} />
              </div>
            </td>
            <td>
              {handle.agentId ? (
                <a href={`#/agents?agent=${encodeURIComponent(handle.agentId)}`} className="res-agent" data-testid={`resource-agent-${handle.handleId}`}>
                  <TextAgent text={handle.agentId} />
                </a>
              ) : (
                <TextAgent text={handle.ownerId ?? 'no owner'} />
              )}
              <div className="res-sub" title={handle.ownerId === undefined ? undefined : visibleText(`${handle.scope} ${handle.ownerId}`)}>
                {handle.scope}
                {handle.sessionId && handle.agentId && (
                  <>
                    {' · '}
                    <a href={`#/agents?agent=${encodeURIComponent(handle.agentId)}`} title={`session ${handle.sessionId}`}>
                      session {handle.sessionId.slice(0, 8)}
                    </a>
                  </>
                )}
              </div>
            </td>
            <td>
              {handle.providerId}
              {handle.meta.preferenceFallback === true && (
                <div className="res-sub-warn" title="The isolation policy was preferred and no provider claiming every axis could serve it">
                  isolation fallback
                </div>
              )}
            </td>
            <td className="table-num" data-testid={`resource-refs-${handle.handleId}`}>
              {handle.refCount}
            </td>
            <td>
              <Badge tone={handleTone(handle.status)} testId={`resource-status-${handle.handleId}`}>
                {handle.status}
              </Badge>
              {typeof handle.meta.cleanupError === 'string' && (
                <div className="res-sub-bad">
                  <TextAgent text={handle.meta.cleanupError} />
                </div>
              )}
              {health[handle.handleId] && (
                <div className="res-sub">
                  health check: <TextAgent text={health[handle.handleId]!} />
                </div>
              )}
            </td>
            <td className="table-num">
              <time dateTime={handle.createdAt} title={new Date(handle.createdAt).toLocaleString()}>
                {ageOf(handle.createdAt, now)}
              </time>
            </td>
            <td className="res-actions">
              <Button
                size="sm"
                variant="ghost"
                icon={<Activity size={14} />}
                onClick={() => void checkHealth(handle.handleId)}
                aria-label={`Check the health of ${handle.kind} ${handle.handleId}`}
              >
                Check
              </Button>
              <Button
                size="sm"
                variant="ghost"
                className="res-release"
                icon={<Power size={14} />}
                busy={releasing[handle.handleId]}
                data-testid={`resource-release-${handle.handleId}`}
                aria-label={`Release ${handle.kind} ${handle.handleId}`}
                onClick={() => onRelease(handle)}
              >
                Release
              </Button>
            </td>
          </tr>
        ))}
      </Table>
    </div>
  )
}
