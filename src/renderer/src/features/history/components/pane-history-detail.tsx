import type { HistoryDetail, HistoryOutput } from '@shared/ipc/history'
import { useEffect, type ReactNode } from 'react'
import { clipForDisplay, formatBytes, formatDuration, formatTimestamp, hasOutput, inputFields, outputNotes, providerFacts } from '../lib/history-selectors'
import { useHistoryStore } from '../store/history-store'
import { BadgeStatus } from './badge-status'

/** The open call in full: input, policy, provider and isolation, outputs, artifacts, lineage and its chain link. */
export function PaneHistoryDetail() {
  const selectedId = useHistoryStore((state) => state.selectedId)
  const detail = useHistoryStore((state) => state.detail)
  const detailStatus = useHistoryStore((state) => state.detailStatus)
  const detailError = useHistoryStore((state) => state.detailError)
  const close = useHistoryStore((state) => state.closeDetail)
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [close])
  if (!selectedId) return null
  return (
    <aside className="drawer" aria-label="Call detail" data-testid="history-detail">
      <header className="drawer-head">
        <div className="drawer-title">
          <h2>
            <code>{detail?.tool ?? '…'}</code>
            {detail && <BadgeStatus status={detail.status} testId="history-detail-status" />}
          </h2>
          <div className="muted small mono">{selectedId}</div>
        </div>
        <button type="button" className="icon-button" aria-label="Close" title="Close (Esc)" data-testid="history-detail-close" onClick={close}>
          ×
        </button>
      </header>
      {detailStatus === 'loading' && !detail && <p className="muted">Loading…</p>}
      {detailStatus === 'error' && (
        <div className="banner banner-error" role="alert">
          {detailError}
        </div>
      )}
      {detail && <DetailBody detail={detail} />}
    </aside>
  )
}

function DetailBody({ detail }: { detail: HistoryDetail }) {
  const provider = providerFacts(detail.provider)
  const result = isEmpty(detail.result) ? undefined : detail.result
  return (
    <div className="drawer-body">
      <dl className="facts">
        <Fact label="Agent">{detail.agentId ?? '—'}</Fact>
        <Fact label="Session">{detail.sessionId ? <span className="mono small">{detail.sessionId}</span> : '—'}</Fact>
        <Fact label="Started">{formatTimestamp(detail.startedAt)}</Fact>
        <Fact label="Finished">{detail.finishedAt ? formatTimestamp(detail.finishedAt) : 'still running'}</Fact>
        <Fact label="Duration">{formatDuration(detail.durationMs)}</Fact>
        <Fact label="Exit code">{detail.exitCode ?? '—'}</Fact>
      </dl>
      {detail.error && (
        <div className="detail-error" data-testid="history-detail-error">
          <code>{detail.error.code}</code> {detail.error.message}
        </div>
      )}

      <Section title="Input" testId="history-detail-input">
        {inputFields(detail.inputSummary).map((field) => (
          <div key={field.key} className={field.block ? 'input-field input-block' : 'input-field'}>
            <span className="input-key">{field.key}</span>
            {field.block ? <pre className="code-block">{field.text}</pre> : <code>{field.text}</code>}
          </div>
        ))}
        {detail.inputSummary === null && <p className="muted">None recorded.</p>}
      </Section>

      <Section title="Policy" testId="history-detail-policy">
        {detail.policy ? (
          <p className="detail-line">
            <span className={`badge badge-${detail.policy.decision === 'allow' ? 'ok' : detail.policy.decision === 'deny' ? 'bad' : 'warn'}`}>{detail.policy.decision}</span>
            {detail.policy.rule && (
              <span>
                rule <code>{detail.policy.rule}</code>
              </span>
            )}
            {detail.policy.reason && <span className="muted">{detail.policy.reason}</span>}
          </p>
        ) : (
          <p className="muted">No policy decision was recorded for this call.</p>
        )}
        {detail.policy?.riskFlags && detail.policy.riskFlags.length > 0 && (
          <div className="toolchains">
            {detail.policy.riskFlags.map((flag) => (
              <span key={flag} className="chip chip-warn">
                {flag}
              </span>
            ))}
          </div>
        )}
        {detail.policy?.taint && (
          <p className="detail-line" data-testid="history-detail-taint">
            taint <span className="badge badge-neutral">{detail.policy.taint}</span>
            {detail.policy.taintAfter && detail.policy.taintAfter !== detail.policy.taint && (
              <>
                → <span className="badge badge-warn">{detail.policy.taintAfter}</span>
              </>
            )}
            {detail.policy.classification?.reads && <span className="muted">read {detail.policy.classification.reads}</span>}
            {detail.policy.classification?.sink && <span className="muted">sent to {detail.policy.classification.sink}</span>}
          </p>
        )}
        {detail.policy?.commands && detail.policy.commands.length > 0 && (
          <>
            <p className="muted">Commands the policy found in the line:</p>
            <pre className="code-block" data-testid="history-detail-commands">
              {detail.policy.commands.map((argv) => argv.join(' ')).join('\n')}
            </pre>
          </>
        )}
        {detail.approval && (
          <p className="detail-line">
            approval <span className="badge badge-neutral">{detail.approval.status}</span>
            <span className="muted">{detail.approval.reason}</span>
            {detail.approval.approvalId && <code className="small">{detail.approval.approvalId}</code>}
          </p>
        )}
      </Section>

      <Section title="Provider" testId="history-detail-provider">
        {provider ? (
          <>
            <p className="detail-line">
              <strong>{provider.providerId ?? 'no provider ran it'}</strong>
              {provider.mechanism && <span className="muted">{provider.mechanism}</span>}
              {provider.networkMode && <span className="muted">network {provider.networkMode}</span>}
            </p>
            {provider.axes.length > 0 && (
              <ul className="axes" aria-label="Isolation recorded for this call">
                {provider.axes.map((axis) => (
                  <li key={axis.label} className={axis.on ? 'axis-on' : 'axis-off'}>
                    {axis.on ? '✓' : '✗'} {axis.label}
                  </li>
                ))}
              </ul>
            )}
            {provider.fallback && <p className="warning small">Isolation fallback: {provider.fallback}</p>}
            {provider.probes.length > 0 && <p className="muted small probe-caption">Providers considered, in order:</p>}
            {provider.probes.length > 0 && (
              <ul className="probe-list small">
                {provider.probes.map((probe) => (
                  <li key={probe.providerId}>
                    <span className={probe.eligible ? 'axis-on' : 'axis-off'}>{probe.eligible ? '✓' : '✗'}</span> {probe.providerId}
                    {probe.reason && <span className="muted"> — {probe.reason}</span>}
                  </li>
                ))}
              </ul>
            )}
            {provider.other.length > 0 && (
              <p className="muted small">
                {provider.other.map(([key, value]) => (
                  <span key={key} className="kv">
                    {key} <code>{value}</code>
                  </span>
                ))}
              </p>
            )}
          </>
        ) : (
          <p className="muted">No execution provider was recorded: file tools run in Airlock itself, and a call stopped before it ran has none.</p>
        )}
      </Section>

      <Output name="stdout" stream={detail.stdout} />
      <Output name="stderr" stream={detail.stderr} />

      {result !== undefined && (
        <Section title="Result">
          <pre className="code-block">{pretty(result)}</pre>
        </Section>
      )}

      {detail.artifacts.length > 0 && (
        <Section title="Artifacts" testId="history-detail-artifacts">
          <ul className="detail-list">
            {detail.artifacts.map((artifact) => (
              <li key={artifact.path}>
                <code>{artifact.name}</code> <span className="muted">{formatBytes(artifact.bytes)}</span>
                {artifact.mediaType && <span className="muted"> · {artifact.mediaType}</span>}
                <div className="cell-sub mono" title={`${artifact.path}\nsha256 ${artifact.sha256}`}>
                  {artifact.path}
                </div>
              </li>
            ))}
          </ul>
        </Section>
      )}

      <Section title="Lineage">
        {detail.lineage.length > 0 ? (
          <ul className="detail-list">
            {detail.lineage.map((endpoint, index) => (
              <li key={`${endpoint.kind}-${endpoint.endpoint}-${index}`}>
                <span className="chip">{endpoint.kind}</span> <code>{endpoint.endpoint}</code>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No network endpoint recorded.</p>
        )}
      </Section>

      <Section title="Hash chain" testId="history-detail-chain">
        {detail.chain ? (
          <dl className="facts facts-chain">
            <Fact label="Position">#{detail.chain.chainSeq}</Fact>
            <Fact label="Hash">
              <code title={detail.chain.hash}>{detail.chain.hash.slice(0, 24)}…</code>
            </Fact>
            <Fact label="Previous">
              <code title={detail.chain.prevHash}>{detail.chain.prevHash.slice(0, 24)}…</code>
            </Fact>
          </dl>
        ) : (
          <p className="muted">Not chained yet: a row joins the chain when its call ends.</p>
        )}
      </Section>
    </div>
  )
}

function Output({ name, stream }: { name: 'stdout' | 'stderr'; stream: HistoryOutput }) {
  const notes = outputNotes(stream)
  const shown = stream.text === null ? undefined : clipForDisplay(stream.text)
  return (
    <Section title={name} testId={`history-detail-${name}`}>
      {hasOutput(stream) && shown ? (
        <pre className={`output output-${name}`} data-testid={`history-detail-${name}-text`}>
          {shown.text}
        </pre>
      ) : (
        !stream.problem && <p className="muted">{stream.text === '' ? 'Empty.' : 'Nothing recorded.'}</p>
      )}
      {shown && shown.omitted > 0 && (
        <p className="small muted">
          Showing the first {shown.text.length.toLocaleString()} characters; {shown.omitted.toLocaleString()} more are in the record.
        </p>
      )}
      {notes.map((note) => (
        <p key={note.text} className={`small ${note.tone === 'error' ? 'field-error' : note.tone === 'warning' ? 'warning' : 'muted'}`}>
          {note.text}
        </p>
      ))}
    </Section>
  )
}

function Section({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) {
  return (
    <section className="detail-section" data-testid={testId}>
      <h3>{title}</h3>
      {children}
    </section>
  )
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  )
}

function pretty(value: unknown): string {
  if (value === undefined || value === null) return '—'
  if (typeof value === 'string') return value
  return JSON.stringify(value, null, 2)
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'object' && Object.keys(value as object).length === 0)
}
