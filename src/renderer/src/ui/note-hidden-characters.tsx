import { hiddenCharactersIn } from '@shared/visible-text'
import { EyeOff } from 'lucide-react'
import { useMemo } from 'react'

/** How many distinct characters the note names before it says "and N more". */
const namedAtMost = 6

/**
 * A warning over agent text that holds hidden characters (Trojan Source and its kin): which ones,
 * and that each is shown escaped and marked where it is (`consequence` adds what that means
 * there). `texts` should keep its identity between renders. Draws nothing when there are none.
 */
export function NoteHiddenCharacters(props: { texts: readonly string[]; what: string; consequence?: string; testId?: string }) {
  const found = useMemo(() => hiddenCharactersIn(props.texts), [props.texts])
  if (found.length === 0) return null
  return (
    <div className="note-hidden-chars" role="note" data-testid={props.testId}>
      <EyeOff size={15} aria-hidden="true" className="note-hidden-chars-icon" />
      <div>
        <strong>Hidden characters.</strong> {props.what} holds characters a reader would not see, or that change the order text reads in. Each is shown below as
        its escape, <mark className="text-hidden-char">marked like this</mark>.{props.consequence && ` ${props.consequence}`}
        <ul className="note-hidden-chars-list">
          {found.slice(0, namedAtMost).map((entry) => (
            <li key={entry.codePoint}>
              <code>{entry.label}</code>
            </li>
          ))}
          {found.length > namedAtMost && <li>and {found.length - namedAtMost} more kinds</li>}
        </ul>
      </div>
    </div>
  )
}
