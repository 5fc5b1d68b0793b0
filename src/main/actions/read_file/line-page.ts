import { readAt } from '../../files/workspace'

/** The most one `read_file` page returns: 256 KiB of the file (whole lines unless one line is longer). */
export const pageBytes = 256 * 1024

/** How much is read at a time while skipping to the first line of a page. */
const skipChunkBytes = 1024 * 1024

/**
 * One page of a file by lines. `firstLine` is 1-based; `lines` counts the lines the page holds (a
 * last one cut short included); `nextOffset` is where the next page starts (undefined at the end);
 * `longLine` is true when the page is one line longer than a page, cut at a character boundary;
 * `fileLines` is the file's line count when the page had to find it (an offset past the end).
 */
export type LinePage = { bytes: Buffer; firstLine: number; lines: number; truncated: boolean; nextOffset?: number; longLine: boolean; fileLines?: number }

/**
 * Reads lines `offset ..` of an open file of `size` bytes: at most `limit` lines and at most
 * `pageBytes` bytes, ending on a line end when at least one whole line fits. Reads are
 * asynchronous and in chunks, so a large file does not hold the main thread.
 */
export async function readLinePage(fd: number, size: number, offset: number, limit: number | undefined, signal?: AbortSignal): Promise<LinePage> {
  let position = 0
  let line = 1
  while (line < offset && position < size) {
    signal?.throwIfAborted()
    const chunk = await readAt(fd, Math.min(skipChunkBytes, size - position), position)
    if (chunk.length === 0) break
    const passed = pastLines(chunk, offset - line)
    line += passed.lines
    position += line < offset ? chunk.length : passed.end
  }
  if (line < offset || (position >= size && offset > 1)) {
    // Past the end: `line` is one more than the newlines in the file.
    const last = size > 0 ? (await readAt(fd, 1, size - 1))[0] : undefined
    const fileLines = last === undefined ? 0 : last === 10 ? line - 1 : line
    return { bytes: Buffer.alloc(0), firstLine: offset, lines: 0, truncated: false, longLine: false, fileLines }
  }
  const buffer = await readAt(fd, Math.min(pageBytes, size - position), position)
  let end = buffer.length
  let newlines = 0
  let cutByLimit = false
  if (limit !== undefined) {
    const passed = pastLines(buffer, limit)
    newlines = passed.lines
    if (newlines === limit) {
      end = passed.end
      cutByLimit = true
    }
  }
  let longLine = false
  if (!cutByLimit && position + buffer.length < size) {
    // The page is full and the file goes on: end after the last whole line, or cut a line longer than a page.
    const lastNewline = buffer.lastIndexOf(10)
    if (lastNewline >= 0) end = lastNewline + 1
    else {
      end = utf8Boundary(buffer, buffer.length)
      longLine = true
    }
  }
  const bytes = buffer.subarray(0, end)
  const newlineCount = count(bytes, 10)
  const truncated = position + bytes.length < size
  const lines = newlineCount + (bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? 1 : 0)
  return { bytes, firstLine: offset, lines, truncated, longLine, ...(truncated ? { nextOffset: offset + (longLine ? 1 : newlineCount) } : {}) }
}

function count(bytes: Buffer, byte: number): number {
  let total = 0
  for (let at = bytes.indexOf(byte); at >= 0; at = bytes.indexOf(byte, at + 1)) total += 1
  return total
}

/** The largest end ≤ `end` that does not split a UTF-8 character. */
export function utf8Boundary(buffer: Buffer, end: number): number {
  let start = end
  while (start > 0 && end - start < 4 && ((buffer[start - 1] as number) & 0xc0) === 0x80) start -= 1
  if (start === 0) return end
  const lead = buffer[start - 1] as number
  const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return end - (start - 1) >= needed ? end : start - 1
}

/** Up to `wanted` line ends of `bytes` from its start: how many there were, and the offset just past the last one. */
function pastLines(bytes: Buffer, wanted: number): { lines: number; end: number } {
  let lines = 0
  let end = 0
  while (lines < wanted) {
    const newline = bytes.indexOf(10, end)
    if (newline < 0) break
    lines += 1
    end = newline + 1
  }
  return { lines, end }
}
