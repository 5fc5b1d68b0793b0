import type { ReactNode } from 'react'

/** One choice of a SegmentedControl: the value it picks, its label, and its test id. */
export type SegmentedOption<T> = { value: T; label: ReactNode; testId?: string }

/**
 * A few toggle buttons in a named group, the one matching `value` pressed (`aria-pressed`): a
 * view's mode or window (`joined`, the default), or a longer pick that wraps (`chips`).
 */
export function SegmentedControl<T extends string | number | null>(props: {
  options: readonly SegmentedOption<T>[]
  value: T
  onChange(value: T): void
  /** The group's name, or the id of the element that names it. */
  label?: string
  labelledBy?: string
  look?: 'joined' | 'chips'
}) {
  return (
    <div className={`segmented segmented-${props.look ?? 'joined'}`} role="group" aria-label={props.label} aria-labelledby={props.labelledBy}>
      {props.options.map((option) => (
        <button
          key={String(option.value)}
          type="button"
          aria-pressed={props.value === option.value}
          onClick={() => props.onChange(option.value)}
          data-testid={option.testId}
        >
          {option.label}
        </button>
      ))}
    </div>
  )
}
