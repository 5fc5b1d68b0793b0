import type { ReactNode } from 'react'

/** One titled section of the Settings view (its heading names the region for screen readers). */
export function SectionSettings(props: { id: string; title: string; children: ReactNode }) {
  return (
    <section className="set-section" aria-labelledby={props.id}>
      <h2 id={props.id} className="set-section-title">
        {props.title}
      </h2>
      {props.children}
    </section>
  )
}
