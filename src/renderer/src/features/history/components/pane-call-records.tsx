import type { HistoryDetail } from '@shared/ipc/history'
import { ShieldCheck } from 'lucide-react'
import { visibleText } from '@shared/visible-text'
import { Badge, Button, TextAgent } from '../../../ui'
import { chainStanding, resultText } from '../lib/call-facts'
import { formatBytes } from '../lib/format'
import { useHistoryStore } from '../store/history-store'
import { FactCall, SectionCall } from './section-call'

/** Files the call produced: name, size, type, where they are and their sha256. */
export function PaneCallArtifacts({ artifacts }: { artifacts: HistoryDetail['artifacts'] }) {
  if (artifacts.length === 0) return null
  return (
    <SectionCall title="Artifacts" testId="history-detail-artifacts" aside={<span className="history-dim">{artifacts.length}</span>}>
      <ul className="history-records">
        {artifacts.map((artifact) => (
          <li key={artifact.path}>
            <span className="history-inline">
              <code className="history-strong">
                <TextAgent text={artifact.name} />
              </code>
              <span className="history-dim">{formatBytes(artifact.bytes)}</span>
              {artifact.mediaType && <span className="history-dim">{artifact.mediaType}</span>}
            </span>
            <span className="history-mono history-dim history-clip" title={visibleText(artifact.path)}>
              <TextAgent text={artifact.path} />
            </span>
            <span className="history-mono history-dim history-clip" title={artifact.sha256}>
              sha256 {artifact.sha256}
            </span>
          </li>
        ))}
      </ul>
    </SectionCall>
  )
}

/** The network endpoints the call reached (or was asked to), as lineage records them. */
export function PaneCallLineage({ lineage }: { lineage: HistoryDetail['lineage'] }) {
  return (
    <SectionCall title="Lineage" testId="history-detail-lineage">
      {lineage.length === 0 ? (
        <p className="history-dim">No network endpoint or data source recorded.</p>
      ) : (
        <ul className="history-records">
          {lineage.map((endpoint, index) => (
            <li key={`${endpoint.kind}-${index}`} className="history-inline">
              <Badge tone={endpoint.decision === 'denied' ? 'bad' : endpoint.decision === 'allowed' ? 'ok' : 'info'}>
                {endpoint.decision ?? endpoint.kind}
              </Badge>
              <code className="history-break">
                <TextAgent text={endpoint.endpoint} />
              </code>
              {endpoint.decision ? (
                <span className="history-dim">
                  <TextAgent text={egressFacts(endpoint)} />
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </SectionCall>
  )
}

/** What the egress proxy recorded of one connection: where it went, how much, by which rule; or why it was refused. */
function egressFacts(endpoint: HistoryDetail['lineage'][number]): string {
  if (endpoint.decision === 'denied') return endpoint.reason ?? 'refused'
  const bytes = (n: number | undefined) => (n === undefined ? '?' : n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`)
  return [
    endpoint.address ? `at ${endpoint.address}` : '',
    `${bytes(endpoint.bytesUp)} up, ${bytes(endpoint.bytesDown)} down`,
    endpoint.rule ? `rule ${endpoint.rule}` : ''
  ]
    .filter(Boolean)
    .join(' · ')
}

/** The result's data as recorded (outputs left out), when there is any. */
export function PaneCallResult({ result }: { result: unknown }) {
  const text = resultText(result)
  if (text === undefined) return null
  return (
    <SectionCall title="Result" testId="history-detail-result">
      <pre className="history-code">
        <TextAgent text={text} multiline />
      </pre>
    </SectionCall>
  )
}

/** Where the call sits in the hash chain, and whether the last verification covers it. */
export function PaneCallChain({ detail }: { detail: HistoryDetail }) {
  const verification = useHistoryStore((state) => state.verification)
  const verifying = useHistoryStore((state) => state.verifying)
  const verify = useHistoryStore((state) => state.verify)
  const standing = chainStanding(detail, verification)
  return (
    <SectionCall
      title="Hash chain"
      testId="history-detail-chain"
      aside={
        <Button size="sm" icon={<ShieldCheck size={14} />} busy={verifying} onClick={() => void verify()} data-testid="history-drawer-verify">
          {verifying ? 'Verifying…' : 'Verify chain'}
        </Button>
      }
    >
      <p className="history-inline" data-testid="history-chain-status">
        <Badge tone={standing.tone}>{standing.label}</Badge>
        <span className="history-dim">{standing.text}</span>
      </p>
      {detail.chain && (
        <dl className="history-facts history-facts-list">
          <FactCall label="Position" wide>
            <span className="history-mono">#{detail.chain.chainSeq.toLocaleString('en-US')}</span>
          </FactCall>
          <FactCall label="Hash" wide>
            <code className="history-break">{detail.chain.hash}</code>
          </FactCall>
          <FactCall label="Previous" wide>
            <code className="history-break history-dim">{detail.chain.prevHash}</code>
          </FactCall>
        </dl>
      )}
    </SectionCall>
  )
}
