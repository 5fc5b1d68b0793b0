import type { EffectiveAgentProfile } from '@shared/agents'
import type { ReactNode } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Badge, ErrorBanner, Loading } from '../../../ui'
import { limitKeys } from '../lib/profile-form'
import { askMeaning, isolationMeaning, limitText, networkMeaning, sourceOf, type ValueSource } from '../lib/profile-text'
import { formatBytes } from '../lib/workspace-tree'
import { useAgentsStore } from '../store/agents-store'

/** The profile tab: what the agent runs under (its values over its role's over the defaults), where each value comes from, and what the role capped. */
export function PaneAgentProfile(props: { agentId: string }) {
  const { detail, refresh } = useAgentsStore(useShallow((state) => ({ detail: state.detail, refresh: state.refreshDetail })))
  const agent = useAgentsStore((state) => state.agents.find((a) => a.id === props.agentId))
  const role = useAgentsStore((state) => state.roles.find((r) => r.id === agent?.role))
  if (detail.status === 'error') return <ErrorBanner message={detail.error!.message} onRetry={() => void refresh()} />
  if (!detail.value || !agent) return <Loading label="Loading the profile…" />
  const profile = detail.value.effectiveProfile
  const from = (key: string) => sourceOf(key, agent, role)

  return (
    <div className="ag-profile" data-testid="agent-profile">
      <div className="ag-profile-intro">
        <p className="ag-muted">
          The profile this agent runs under: its own values over{' '}
          {agent.role ? (
            <>
              the role <strong>{agent.role}</strong>’s defaults
            </>
          ) : (
            'Airlock’s defaults'
          )}
          {agent.role ? ', then Airlock’s defaults' : ''}. Tags show where each value comes from; <strong>Edit profile</strong> changes the agent’s own values.
        </p>
      </div>
      {detail.value.problem && <ErrorBanner message={detail.value.problem} />}
      {detail.value.clamped.length > 0 && (
        <div className="ag-clamps" data-testid="agent-clamps">
          <strong>Capped by the role:</strong>
          <ul>
            {detail.value.clamped.map((clamp) => (
              <li key={clamp.path}>
                <code>{clamp.path}</code> — {clamp.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {profile ? (
        <ProfileGroups profile={profile} from={from} />
      ) : (
        <p className="ag-muted">No effective profile: the agent runs nothing until the problem above is fixed.</p>
      )}
    </div>
  )
}

function ProfileGroups({ profile, from }: { profile: EffectiveAgentProfile; from(key: string): ValueSource }) {
  const servers = profile.mcpServers
  const labels = Object.entries(profile.labels).flatMap(([kind, map]) => Object.entries(map ?? {}).map(([name, level]) => ({ kind, name, level })))
  return (
    <div className="ag-profile-groups">
      <Group title="When it asks">
        <Row label="Ask" source={from('ask')} hint={askMeaning[profile.ask]}>
          <code>{profile.ask}</code>
        </Row>
        <Row label="Approval timeout" source={from('approvalTimeoutSeconds')}>
          {profile.approvalTimeoutSeconds} s
        </Row>
        <Row label="Classification ceiling" source={from('classificationCeiling')}>
          {profile.classificationCeiling}
        </Row>
      </Group>
      <Group title="Isolation and network">
        <Row label="Isolation" source={from('isolation')} hint={isolationMeaning[profile.isolation]}>
          <code>{profile.isolation}</code>
        </Row>
        <Row
          label="Providers, in order"
          source={from('providers')}
          hint={from('providers') === 'default' ? 'the operator’s order (Providers view); follows it when it changes' : undefined}
        >
          {profile.providers.join(' → ')}
        </Row>
        <Row label="Unsafe fallback" source={from('unsafeFallback')}>
          {profile.unsafeFallback ? 'on' : 'off'}{' '}
          {profile.unsafeFallback && !profile.allowUnsafeLocal && <span className="ag-muted">(needs allow unsafe local)</span>}
        </Row>
        <Row label="Allow unsafe local" source={from('allowUnsafeLocal')}>
          {profile.allowUnsafeLocal ? 'on' : 'off'}
        </Row>
        <Row label="Network" source={from('network')} hint={networkMeaning[profile.network]}>
          <code>{profile.network}</code>
        </Row>
      </Group>
      <Group title="Capabilities">
        <Row label="Tools" source={from('capabilities')}>
          <span className="ag-chips">
            {profile.capabilities.length === 0 ? (
              <span className="ag-muted">none</span>
            ) : (
              profile.capabilities.map((c) => (
                <span key={c} className="ag-chip">
                  {c}
                </span>
              ))
            )}
          </span>
        </Row>
        <Row label="Runtimes" source={from('runtimes')}>
          {profile.runtimes.length === 0 ? <span className="ag-muted">any</span> : profile.runtimes.join(', ')}
        </Row>
      </Group>
      <Group title="Limits per call">
        {limitKeys.map((key) => (
          <Row key={key} label={limitText[key].label} source={from(`limits.${key}`)}>
            {key === 'outputBytes' ? formatBytes(profile.limits[key]) : `${profile.limits[key].toLocaleString()} ${limitText[key].unit}`}
          </Row>
        ))}
      </Group>
      <Group title="Commands">
        <Row label="Denylist" source={from('denylist')}>
          <List items={profile.denylist} none="none of its own" />
        </Row>
        <Row label="Allowlist" source={from('allowlist')}>
          <List items={profile.allowlist} none="none" />
        </Row>
      </Group>
      <Group title="MCP servers and labels">
        <Row label="Upstream servers" source={from('mcpServers')}>
          {servers.length === 0 ? (
            <span className="ag-muted">none</span>
          ) : (
            <ul className="ag-plain-list">
              {servers.map((server) => (
                <li key={server.name}>
                  <code>{server.name}</code> <span className="ag-muted">{server.url ?? server.command?.join(' ')}</span>{' '}
                  {server.unsafe && <Badge tone="bad">unsandboxed</Badge>}
                </li>
              ))}
            </ul>
          )}
        </Row>
        <Row label="Classification labels" source={from('labels')}>
          {labels.length === 0 ? (
            <span className="ag-muted">none of its own</span>
          ) : (
            <ul className="ag-plain-list">
              {labels.map((label) => (
                <li key={`${label.kind}:${label.name}`}>
                  <span className="ag-muted">{label.kind}</span> <code>{label.name}</code> → {label.level}
                </li>
              ))}
            </ul>
          )}
        </Row>
      </Group>
    </div>
  )
}

function Group(props: { title: string; children: ReactNode }) {
  return (
    <section className="ag-group">
      <h3>{props.title}</h3>
      <dl>{props.children}</dl>
    </section>
  )
}

const sourceLabel: Record<ValueSource, string> = { agent: 'set here', role: 'from role', default: 'default' }

function Row(props: { label: string; source: ValueSource; hint?: string; children: ReactNode }) {
  return (
    <div className="ag-prow">
      <dt>{props.label}</dt>
      <dd>
        <span className="ag-prow-value">{props.children}</span>
        {props.hint && <span className="ag-prow-hint">{props.hint}</span>}
      </dd>
      <dd className="ag-prow-source">
        <span className={`ag-source ag-source-${props.source}`}>{sourceLabel[props.source]}</span>
      </dd>
    </div>
  )
}

function List({ items, none }: { items: string[]; none: string }) {
  if (items.length === 0) return <span className="ag-muted">{none}</span>
  return (
    <span className="ag-chips">
      {items.map((item) => (
        <code key={item} className="ag-chip">
          {item}
        </code>
      ))}
    </span>
  )
}
