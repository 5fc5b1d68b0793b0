import { agentProfileDefaults } from '@shared/agents'
import { Badge } from '../../../ui'

const policies = [
  {
    value: 'required',
    tone: 'ok' as const,
    text: 'Every one of the four axes must be claimed by the provider. The first candidate that claims all four runs the code; if none does, the call fails with provider_unavailable and the probe of each candidate says why. It never falls back, and trusted_local can never satisfy it.'
  },
  {
    value: 'preferred',
    tone: 'warn' as const,
    text: 'A provider claiming all four axes is searched first, down the whole order. If none can run the call, the first other eligible provider does, and the fallback is recorded on the resource and shown in Resources and History.'
  },
  {
    value: 'none',
    tone: 'neutral' as const,
    text: 'No isolation demanded: the first eligible provider in the order runs the code, whatever it enforces.'
  }
]

/**
 * The isolation selection policy and `unsafeFallback` in plain words (SPEC §3.4). Both are fields
 * of each agent's profile, not global settings; the panel says so and where to change them.
 */
export function PanelIsolationPolicy() {
  return (
    <section className="prv-panel prv-policy" aria-labelledby="prv-policy-title" data-testid="provider-isolation-policy">
      <h3 id="prv-policy-title">Isolation policy</h3>
      <p className="prv-muted">
        Set per agent in its profile (<code>isolation</code>, <code>unsafeFallback</code>; Agents → edit, or <code>airlock agent create --profile</code>). New
        agents get <code>isolation: {agentProfileDefaults.isolation}</code> and <code>unsafeFallback: {String(agentProfileDefaults.unsafeFallback)}</code>.
      </p>
      <dl className="prv-policy-list">
        {policies.map((policy) => (
          <div key={policy.value} className="prv-policy-item">
            <dt>
              <Badge tone={policy.tone}>{policy.value}</Badge>
            </dt>
            <dd>{policy.text}</dd>
          </div>
        ))}
        <div className="prv-policy-item prv-policy-unsafe">
          <dt>
            <Badge tone="bad">unsafeFallback</Badge>
          </dt>
          <dd>
            Only with <code>preferred</code> or <code>none</code>. When no provider in the order can run the call, it runs with <code>trusted_local</code>:
            directly on this machine, as your user, with <strong>no isolation at all</strong>. It also needs <code>allowUnsafeLocal: true</code> on the same
            agent; without it there is no fallback. Such calls are flagged <code>isolation_fallback</code> in History.
          </dd>
        </div>
      </dl>
      <p className="prv-muted prv-small">
        The code-execution order on this page is the order every agent follows unless its profile or its role names its own <code>providers</code>; a change
        here applies to their next call. An agent's pane says which order it follows.
      </p>
    </section>
  )
}
