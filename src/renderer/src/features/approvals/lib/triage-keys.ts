/** What a key does on the queue. */
export type TriageAction = 'next' | 'previous' | 'approve' | 'session' | 'rule' | 'deny' | 'check' | 'checkAgent' | 'clear' | 'help'

/** The keys of the queue, in the order the help dialog lists them. */
export const triageKeys: { keys: string[]; action: TriageAction; does: string }[] = [
  { keys: ['j', '↓'], action: 'next', does: 'Select the next (older) request' },
  { keys: ['k', '↑'], action: 'previous', does: 'Select the previous (newer) request' },
  { keys: ['a'], action: 'approve', does: 'Approve the selected request once' },
  { keys: ['s'], action: 'session', does: 'Approve it, and identical requests, for the rest of its session' },
  { keys: ['r'], action: 'rule', does: 'Approve as a rule… (opens the rule dialog: scope and expiry)' },
  { keys: ['d'], action: 'deny', does: 'Deny… (opens the dialog; the reason is sent to the agent)' },
  { keys: ['x'], action: 'check', does: 'Add the selected request to a bulk decision (or take it out); then a or d decides every one picked' },
  { keys: ['X'], action: 'checkAgent', does: 'Pick every pending request of the selected request’s agent' },
  { keys: ['Esc'], action: 'clear', does: 'Clear the requests picked for a bulk decision' },
  { keys: ['?'], action: 'help', does: 'Show these keys' }
]

const byKey: Record<string, TriageAction> = {
  j: 'next',
  ArrowDown: 'next',
  k: 'previous',
  ArrowUp: 'previous',
  a: 'approve',
  s: 'session',
  r: 'rule',
  d: 'deny',
  x: 'check',
  X: 'checkAgent',
  Escape: 'clear',
  '?': 'help'
}

/** The parts of a keyboard event the triage reads (a DOM `KeyboardEvent` has them all). */
export type KeyPress = {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  altKey: boolean
  repeat?: boolean
  target: EventTarget | null
  defaultPrevented?: boolean
}

/**
 * The triage action of a key press, or undefined when the key is not the queue's: while the
 * operator types (an input, a text area, a select, an editable element), while any dialog is
 * open, with Ctrl/Cmd/Alt held (the browser's and the OS's shortcuts), or on a held-down repeat of
 * a deciding key (one press, one decision). Arrow keys only move when the focus is on nothing
 * that uses them (a button or the page), so tabs and scrolling areas keep theirs.
 */
export function triageActionOf(press: KeyPress, context: { dialogOpen: boolean }): TriageAction | undefined {
  if (press.defaultPrevented || context.dialogOpen || press.ctrlKey || press.metaKey || press.altKey) return undefined
  if (isTypingTarget(press.target)) return undefined
  const action = byKey[press.key]
  if (!action) return undefined
  if (press.repeat && action !== 'next' && action !== 'previous') return undefined
  // Escape stays the focused control's own (a menu, a popover); it clears the picks only from the list or the page.
  if (action === 'clear' && !arrowsAreFree(press.target)) return undefined
  if (press.key.startsWith('Arrow') && !arrowsAreFree(press.target)) return undefined
  return action
}

/** Whether keys typed at this element are text (or choices) the operator is entering. */
export function isTypingTarget(target: EventTarget | null): boolean {
  const element = target as (Partial<HTMLElement> & { tagName?: string; isContentEditable?: boolean; getAttribute?(name: string): string | null }) | null
  if (!element || typeof element.tagName !== 'string') return false
  const tag = element.tagName.toLowerCase()
  if (tag === 'textarea' || tag === 'select') return true
  if (tag === 'input') {
    const type = (element.getAttribute?.('type') ?? 'text').toLowerCase()
    return !['button', 'submit', 'reset', 'checkbox', 'radio', 'range', 'color', 'file', 'image'].includes(type)
  }
  if (element.isContentEditable) return true
  const role = element.getAttribute?.('role')
  return role === 'textbox' || role === 'combobox' || role === 'searchbox'
}

function arrowsAreFree(target: EventTarget | null): boolean {
  const element = target as { tagName?: string; getAttribute?(name: string): string | null } | null
  if (!element || typeof element.tagName !== 'string') return true
  const tag = element.tagName.toLowerCase()
  if (tag === 'body' || tag === 'html') return true
  const role = element.getAttribute?.('role')
  return tag === 'button' && role !== 'tab' && role !== 'menuitem' && role !== 'radio'
}
