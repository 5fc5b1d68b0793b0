import type { ReactNode } from 'react'

/** A key as the operator presses it (`j`, `Enter`). */
export function Kbd(props: { children: ReactNode }) {
  return <kbd className="kbd">{props.children}</kbd>
}
