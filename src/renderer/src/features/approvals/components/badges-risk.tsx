import { Badge } from '../../../ui'
import { riskOf } from '../lib/queue'

/** One badge per risk flag of a request, in the queue's words and tones (hover says why). */
export function BadgesRisk({ flags }: { flags: readonly string[] }) {
  return (
    <>
      {flags.map((flag) => {
        const risk = riskOf(flag)
        return (
          <Badge key={flag} tone={risk.tone} title={risk.hint}>
            {risk.label}
          </Badge>
        )
      })}
    </>
  )
}
