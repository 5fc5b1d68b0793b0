import type { ReactNode } from 'react'

/** One column of a Table: its header, whether it holds numbers, and a class for its header cell. */
export type TableColumn = {
  label: string
  /** Read to screen readers only (an actions column shows no header). */
  hidden?: boolean
  /** Right-aligned with tabular figures; give the column's cells `className="table-num"` too. */
  numeric?: boolean
  className?: string
}

/**
 * A data table: a header row drawn from `columns`, the rows (`<tr>`) as children, and an optional
 * footer row. The look comes from base.css; a feature's `className` sets density and frame.
 */
export function Table(props: {
  columns: readonly TableColumn[]
  children: ReactNode
  caption?: string
  footer?: ReactNode
  className?: string
  testId?: string
}) {
  return (
    <table className={props.className ? `table ${props.className}` : 'table'} data-testid={props.testId}>
      {props.caption && <caption className="visually-hidden">{props.caption}</caption>}
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th key={column.label} scope="col" className={[column.numeric ? 'table-num' : '', column.className ?? ''].join(' ').trim() || undefined}>
              {column.hidden ? <span className="visually-hidden">{column.label}</span> : column.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
      {props.footer && <tfoot>{props.footer}</tfoot>}
    </table>
  )
}
