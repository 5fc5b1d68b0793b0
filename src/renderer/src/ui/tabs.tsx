import { Tabs as RadixTabs } from 'radix-ui'
import type { ReactNode } from 'react'

/** Tabs (Radix: arrow keys move, roles wired). `items` gives each tab's value, label and content. */
export function Tabs(props: {
  value: string
  onValueChange(value: string): void
  items: { value: string; label: ReactNode; content: ReactNode; testId?: string }[]
  label: string
}) {
  return (
    <RadixTabs.Root value={props.value} onValueChange={props.onValueChange} className="tabs">
      <RadixTabs.List className="tab-list" aria-label={props.label}>
        {props.items.map((item) => (
          <RadixTabs.Trigger key={item.value} value={item.value} className="tab" data-testid={item.testId}>
            {item.label}
          </RadixTabs.Trigger>
        ))}
      </RadixTabs.List>
      {props.items.map((item) => (
        <RadixTabs.Content key={item.value} value={item.value} className="tab-panel">
          {item.content}
        </RadixTabs.Content>
      ))}
    </RadixTabs.Root>
  )
}
