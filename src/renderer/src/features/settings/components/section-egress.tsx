import { SectionSettings } from './section-settings'
import { parseRuleTarget, presetEnabled, registryPresets, type NetDecision } from '@shared/network'
import { Trash2 } from 'lucide-react'
import { useEffect, useState, type FormEvent } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { Badge, Button, Field, IconButton } from '../../../ui'
import { useSettingsStore } from '../store/settings-store'

const tones = { allow: 'ok', deny: 'bad', ask: 'warn' } as const

/**
 * Network egress (SPEC §6.5): the proxy's domain rules (allow / deny / ask, for one agent, a role or all)
 * and its pinned names. The same store `airlock net` writes; a change applies to the next connection.
 */
export function SectionEgress() {
  const { rules, hosts, error } = useSettingsStore(useShallow((state) => ({ rules: state.netRules, hosts: state.netHosts, error: state.netError })))
  const { loadEgress, removeNetRule, removeNetHost } = useSettingsStore(
    useShallow((state) => ({ loadEgress: state.loadEgress, removeNetRule: state.removeNetRule, removeNetHost: state.removeNetHost }))
  )
  useEffect(() => void loadEgress(), [loadEgress])
  return (
    <SectionSettings id="set-egress" title="Network egress">
      <p className="set-section-lead">
        Agents with <code>network: &quot;proxy&quot;</code> reach the network only through Airlock&apos;s proxy, which decides each connection: a deny rule
        wins, then allow, then ask; a domain no rule names follows the agent&apos;s <code>ask</code> mode. A rule is for every agent, one agent or the agents of
        a role. Loopback, private and metadata addresses need a rule naming the host exactly, or a pinned name. A session that has read labelled data is asked
        before it connects to a domain labelled lower (write-down; domain labels are under Classification labels).
      </p>
      {error && (
        <p className="set-error" role="alert" data-testid="egress-error">
          {error}
        </p>
      )}
      <div className="set-card set-card-padded">
        <h3 className="set-title">Domain rules</h3>
        <RegistryPresets />
        {rules.length === 0 ? (
          <p className="set-muted set-small">No rules yet.</p>
        ) : (
          <ul className="set-egress-list" data-testid="egress-rules">
            {rules.map((rule) => (
              <li key={rule.id} data-testid={`egress-rule-${rule.id}`}>
                <Badge tone={tones[rule.decision]}>{rule.decision}</Badge>
                <code>
                  {rule.host}
                  {rule.port ? `:${rule.port}` : ''}
                </code>
                <span className="set-muted set-small">{rule.agentId ? `agent ${rule.agentId}` : rule.roleId ? `role ${rule.roleId}` : 'every agent'}</span>
                <IconButton label={`Remove the rule for ${rule.host}`} icon={<Trash2 size={14} />} onClick={() => void removeNetRule(rule.id)} />
              </li>
            ))}
          </ul>
        )}
        <FormNetRule />
      </div>
      <div className="set-card set-card-padded">
        <h3 className="set-title">Pinned names</h3>
        <p className="set-description">The proxy resolves these names to these addresses before asking DNS (any address: you say so).</p>
        {hosts.length > 0 && (
          <ul className="set-egress-list" data-testid="egress-hosts">
            {hosts.map((host) => (
              <li key={host.name}>
                <code>{host.name}</code>
                <span className="set-muted">→</span>
                <code>{host.address}</code>
                <IconButton label={`Unpin ${host.name}`} icon={<Trash2 size={14} />} onClick={() => void removeNetHost(host.name)} />
              </li>
            ))}
          </ul>
        )}
        <FormNetHost />
      </div>
    </SectionSettings>
  )
}

/** One click per package registry: its hosts become global allow rules (only the missing ones are added). */
function RegistryPresets() {
  const { rules, addNetRule } = useSettingsStore(useShallow((state) => ({ rules: state.netRules, addNetRule: state.addNetRule })))
  const enable = async (preset: (typeof registryPresets)[number]) => {
    for (const wanted of preset.rules) {
      const present = rules.some((rule) => rule.agentId === null && rule.decision === 'allow' && rule.host === wanted.host && rule.port === wanted.port)
      if (!present && !(await addNetRule({ agentId: null, decision: 'allow', host: wanted.host, port: wanted.port }))) return
    }
  }
  return (
    <div className="set-egress-presets" data-testid="egress-presets">
      <span className="set-muted set-small">Package registries for every agent:</span>
      {registryPresets.map((preset) =>
        presetEnabled(preset, rules) ? (
          <Badge key={preset.id} tone="ok">
            {preset.title} allowed
          </Badge>
        ) : (
          <Button key={preset.id} size="sm" onClick={() => void enable(preset)} title={preset.rules.map((rule) => `${rule.host}:${rule.port}`).join(', ')}>
            Allow {preset.title}
          </Button>
        )
      )}
    </div>
  )
}

type Scope = 'all' | 'agent' | 'role'

/** Adds a rule: decision, host or *.suffix with an optional port, for every agent, one agent or every agent of a role. */
function FormNetRule() {
  const addNetRule = useSettingsStore((state) => state.addNetRule)
  const [decision, setDecision] = useState<NetDecision>('allow')
  const [target, setTarget] = useState('')
  const [scope, setScope] = useState<Scope>('all')
  const [name, setName] = useState('')
  const [problem, setProblem] = useState<string>()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const parsed = parseRuleTarget(target)
    if ('error' in parsed) return setProblem(parsed.error)
    setProblem(undefined)
    const who = name.trim()
    const subject = scope === 'agent' ? { agentId: who } : scope === 'role' ? { agentId: null, roleId: who } : { agentId: null }
    if (await addNetRule({ ...subject, decision, ...parsed })) setTarget('')
  }
  return (
    <form className="set-egress-form" onSubmit={(event) => void submit(event)} data-testid="egress-rule-form">
      <Field label="Decision">
        {(control) => (
          <select {...control} className="set-input" value={decision} onChange={(event) => setDecision(event.target.value as NetDecision)}>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
            <option value="ask">ask</option>
          </select>
        )}
      </Field>
      <Field label="Host (or *.suffix), optional :port" error={problem}>
        {(control) => (
          <input
            {...control}
            className="set-input"
            value={target}
            placeholder="files.pythonhosted.org:443"
            onChange={(event) => setTarget(event.target.value)}
          />
        )}
      </Field>
      <Field label="For">
        {(control) => (
          <select {...control} className="set-input" value={scope} onChange={(event) => setScope(event.target.value as Scope)}>
            <option value="all">every agent</option>
            <option value="agent">one agent</option>
            <option value="role">every agent of a role</option>
          </select>
        )}
      </Field>
      {scope !== 'all' && (
        <Field label={scope === 'agent' ? 'Agent' : 'Role'}>
          {(control) => (
            <input
              {...control}
              className="set-input"
              value={name}
              placeholder={scope === 'agent' ? 'coder' : 'builders'}
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
      )}
      <Button type="submit" variant="primary" disabled={target.trim() === '' || (scope !== 'all' && name.trim() === '')}>
        Add rule
      </Button>
    </form>
  )
}

/** Pins a name to an address. */
function FormNetHost() {
  const addNetHost = useSettingsStore((state) => state.addNetHost)
  const [name, setName] = useState('')
  const [address, setAddress] = useState('')
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (await addNetHost({ name: name.trim().toLowerCase(), address: address.trim() })) {
      setName('')
      setAddress('')
    }
  }
  return (
    <form className="set-egress-form" onSubmit={(event) => void submit(event)} data-testid="egress-host-form">
      <Field label="Name">
        {(control) => <input {...control} className="set-input" value={name} placeholder="pkgs.local" onChange={(event) => setName(event.target.value)} />}
      </Field>
      <Field label="Address">
        {(control) => <input {...control} className="set-input" value={address} placeholder="10.1.2.3" onChange={(event) => setAddress(event.target.value)} />}
      </Field>
      <Button type="submit" disabled={name.trim() === '' || address.trim() === ''}>
        Pin name
      </Button>
    </form>
  )
}
