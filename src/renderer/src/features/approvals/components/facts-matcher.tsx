import type { RuleMatcher } from '@shared/approvals'
import { TextAgent } from '../../../ui'
import { matcherFacts } from '../lib/rules'
import { ArgvTokens } from './list-commands'

/** What a rule's matcher covers, fact by fact (commands as tokens, with what may follow each). */
export function FactsMatcher(props: { matcher: RuleMatcher }) {
  return (
    <dl className="appr-facts" data-testid="rule-matcher-facts">
      {matcherFacts(props.matcher).map((fact, index) => (
        <div key={index} className="appr-fact">
          <dt>{fact.label}</dt>
          <dd>
            {fact.tokens ? <ArgvTokens argv={fact.tokens} glob={fact.glob} /> : null}
            {fact.text && (
              <span className={fact.tokens ? 'appr-muted' : undefined}>
                <TextAgent text={fact.tokens ? ` ${fact.text}` : fact.text} />
              </span>
            )}
          </dd>
        </div>
      ))}
    </dl>
  )
}
