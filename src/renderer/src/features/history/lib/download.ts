/** Hands the browser a file to save: a Blob of `parts` under `name`, through a temporary object URL. */
export function saveFile(parts: BlobPart[], name: string, type = 'application/x-ndjson'): void {
  const url = URL.createObjectURL(new Blob(parts, { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.rel = 'noopener'
  document.body.appendChild(link)
  link.click()
  link.remove()
  // The download has its own reference by now; the URL is only needed for the click.
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
