import { TextAgent, DiffView } from '../../../ui'
import { parseUnifiedDiff } from '../../../ui/unified-diff'

/**
 * What the request would do, as the host previewed it: a file change drawn as a diff (`DiffView`),
 * anything else (a program's files, a skill) as plain text. All of it is the agent's text.
 */
export function PanePreview(props: { preview: string }) {
  if (!parseUnifiedDiff(props.preview)) {
    return (
      <pre className="appr-preview" data-testid="approval-preview" tabIndex={0} role="region" aria-label="Preview">
        <TextAgent text={props.preview} multiline />
      </pre>
    )
  }
  return <DiffView text={props.preview} testId="approval-diff" />
}
