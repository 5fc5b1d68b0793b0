import { Check, Copy } from 'lucide-react'
import { useState } from 'react'

/** Copies `text` to the clipboard and says so for two seconds; says why when the browser refuses. */
export function CopyButton(props: { text: string; label?: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text)
      setState('copied')
    } catch {
      setState('failed')
    }
    setTimeout(() => setState('idle'), 2000)
  }
  return (
    <button type="button" className="btn btn-secondary btn-sm" onClick={copy} data-testid={props.testId} aria-live="polite">
      <span className="btn-icon" aria-hidden="true">
        {state === 'copied' ? <Check size={14} /> : <Copy size={14} />}
      </span>
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy by hand' : (props.label ?? 'Copy')}
    </button>
  )
}

/** A block of code or configuration with a copy button. */
export function CodeBlock(props: { text: string; label: string; testId?: string }) {
  return (
    <div className="code-with-copy">
      <div className="code-with-copy-head">
        <span className="muted small">{props.label}</span>
        <CopyButton text={props.text} testId={props.testId ? `${props.testId}-copy` : undefined} />
      </div>
      <pre className="code-block" data-testid={props.testId}>
        {props.text}
      </pre>
    </div>
  )
}
