/** The Approvals view's place in the URL: the selected item and the open tab (`#/approvals?id=…&tab=rules`). */
export type ApprovalsQuery = { id?: string; tab: 'queue' | 'rules' }

/** Reads the view's query from a location hash; anything unknown is ignored. */
export function readApprovalsQuery(hash: string): ApprovalsQuery {
  const params = new URLSearchParams(hash.split('?')[1] ?? '')
  const id = params.get('id')?.trim()
  return { tab: params.get('tab') === 'rules' ? 'rules' : 'queue', ...(id ? { id: id.slice(0, 128) } : {}) }
}

/** The hash for a view state: `#/approvals`, `#/approvals?id=…`, `#/approvals?tab=rules`. */
export function approvalsHash(query: ApprovalsQuery): string {
  const params = new URLSearchParams()
  if (query.tab === 'rules') params.set('tab', 'rules')
  else if (query.id) params.set('id', query.id)
  const text = params.toString()
  return text ? `#/approvals?${text}` : '#/approvals'
}
