import { Dialog, Kbd } from '../../../ui'
import { triageKeys } from '../lib/triage-keys'

/** The queue's keys and what each does (opened with `?`). */
export function DialogKeyboardHelp(props: { open: boolean; onOpenChange(open: boolean): void }) {
  return (
    <Dialog
      open={props.open}
      onOpenChange={props.onOpenChange}
      title="Keyboard triage"
      description="These keys act on the selected request. They do nothing while you type in a field or while a dialog is open."
      testId="dialog-keyboard-help"
    >
      <table className="appr-keys">
        <tbody>
          {triageKeys.map((entry) => (
            <tr key={entry.action}>
              <td>
                {entry.keys.map((key) => (
                  <Kbd key={key}>{key}</Kbd>
                ))}
              </td>
              <td>{entry.does}</td>
            </tr>
          ))}
          <tr>
            <td>
              <Kbd>Esc</Kbd>
            </td>
            <td>Close a dialog without deciding</td>
          </tr>
        </tbody>
      </table>
    </Dialog>
  )
}
