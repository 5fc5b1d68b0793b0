import { SegmentedControl } from '../../../ui'
import { ttlChoices } from '../lib/rules'

const ttlOptions = ttlChoices.map((choice) => ({ value: choice.seconds, label: choice.label, testId: `ttl-${choice.seconds ?? 'none'}` }))

/** The TTL choices as a row of toggle buttons; `null` is no expiry. */
export function PickTtl(props: { value: number | null; onChange(seconds: number | null): void; labelledBy: string }) {
  return <SegmentedControl look="chips" labelledBy={props.labelledBy} options={ttlOptions} value={props.value} onChange={props.onChange} />
}
