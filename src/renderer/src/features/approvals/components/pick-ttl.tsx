import { ttlChoices } from '../lib/rules'

/** The TTL choices as a row of toggle buttons; `null` is no expiry. */
export function PickTtl(props: { value: number | null; onChange(seconds: number | null): void; labelledBy: string }) {
  return (
    <div className="appr-ttl" role="group" aria-labelledby={props.labelledBy}>
      {ttlChoices.map((choice) => (
        <button key={choice.label} type="button" aria-pressed={props.value === choice.seconds} onClick={() => props.onChange(choice.seconds)} data-testid={`ttl-${choice.seconds ?? 'none'}`}>
          {choice.label}
        </button>
      ))}
    </div>
  )
}
