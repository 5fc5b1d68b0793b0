import { readFile } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2'
}

/** A file of the built renderer ready to send. */
export type StaticFile = { body: Buffer; contentType: string; isHtml: boolean }

/**
 * Reads a file of the built renderer for a URL path; unknown paths get `index.html` (the app
 * routes itself). Paths that escape the root are never read.
 */
export async function readRendererFile(root: string, urlPath: string): Promise<StaticFile | undefined> {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  if (decoded.includes('\0')) return undefined
  const relative = normalize(decoded).replace(/^([/\\])+/, '')
  const candidate = join(root, relative)
  if (candidate !== root && !candidate.startsWith(root + sep)) return undefined
  const file = (await tryRead(candidate)) ?? (extname(relative) === '' ? await tryRead(join(root, 'index.html')) : undefined)
  return file
}

async function tryRead(path: string): Promise<StaticFile | undefined> {
  try {
    const body = await readFile(path)
    const extension = extname(path)
    return { body, contentType: contentTypes[extension] ?? 'application/octet-stream', isHtml: extension === '.html' }
  } catch {
    return undefined
  }
}
