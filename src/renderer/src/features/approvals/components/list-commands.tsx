import { TextAgent } from '../../../ui'

/** A cut marker the queue put in place of what it could not keep (`… 3 more words not shown`). */
const cutMarker = /^… \d+ more (words?|commands?) not shown$|… \(\d+ characters in all\)$/

/**
 * The parsed commands of a command line, one numbered row per simple command, every argv word a
 * token of its own: `rm "-rf /"` and `rm -rf /` never look alike. Empty words and words the queue
 * cut are marked; a hidden character in a word shows escaped and marked (`TextAgent`).
 */
export function ListCommands(props: { commands: string[][]; testId?: string }) {
  return (
    <ol className="appr-commands" data-testid={props.testId}>
      {props.commands.map((argv, index) => (
        <li key={index} className="appr-command">
          <span className="appr-command-index" aria-hidden="true">
            {index + 1}
          </span>
          <ArgvTokens argv={argv} />
        </li>
      ))}
    </ol>
  )
}

/** One argv as tokens, the program first and stressed; `glob` adds the pattern a rule lets follow. */
export function ArgvTokens(props: { argv: string[]; glob?: string }) {
  return (
    <span className="appr-argv">
      {props.argv.map((word, index) => (
        <code
          key={index}
          className={`appr-token${index === 0 ? ' appr-token-program' : ''}${word === '' ? ' appr-token-empty' : ''}${cutMarker.test(word) ? ' appr-token-cut' : ''}`}
        >
          {word === '' ? 'empty word' : <TextAgent text={word} multiline />}
        </code>
      ))}
      {props.glob && (
        <code className="appr-token appr-token-glob" title="a pattern: * any run of characters, ? one character">
          <TextAgent text={props.glob} multiline />
        </code>
      )}
    </span>
  )
}
