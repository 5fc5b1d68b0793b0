/**
 * The unified diff of a literal replacement. The places that changed are known (where `oldText`
 * was found), so no general diff algorithm is needed: each replacement widens to the whole lines
 * around it, replacements whose lines touch merge, lines both sides share at the ends of a block
 * are trimmed back to context, and blocks within twice the context merge into one hunk. Linear in
 * the file's size, exact, and `patch -p1` applies it.
 */

/** Lines of unchanged context around each change. */
export const diffContextLines = 3

/** A change of whole lines: old lines `[oldStart, oldStart + removed.length)` become `added` (0-based). */
type LineChange = { oldStart: number; removed: string[]; added: string[] }

/** Splits text into lines, each keeping its `\n` (the last may lack one). */
export function splitLines(text: string): string[] {
  const lines: string[] = []
  let start = 0
  while (start < text.length) {
    const newline = text.indexOf('\n', start)
    const end = newline < 0 ? text.length : newline + 1
    lines.push(text.slice(start, end))
    start = end
  }
  return lines
}

/**
 * The unified diff (`--- a/<path>`, `+++ b/<path>`, hunks with `diffContextLines` of context) of
 * replacing the `oldLength` characters at each of `positions` (ascending, not overlapping) in
 * `before` with `newText`. Empty when nothing changes.
 */
export function replacementDiff(path: string, before: string, positions: readonly number[], oldLength: number, newText: string): string {
  const lineStarts = [0]
  for (let at = before.indexOf('\n'); at >= 0 && at + 1 < before.length; at = before.indexOf('\n', at + 1)) lineStarts.push(at + 1)
  const lineOf = (index: number) => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if ((lineStarts[middle] as number) <= index) low = middle
      else high = middle - 1
    }
    return low
  }
  const lineEndAfter = (index: number) => {
    if (index >= before.length) return before.length
    const newline = before.indexOf('\n', index)
    return newline < 0 ? before.length : newline + 1
  }
  const changes: LineChange[] = []
  let group = 0
  while (group < positions.length) {
    const first = positions[group] as number
    const start = lineStarts[lineOf(first)] as number
    let end = lineEndAfter(first + oldLength)
    let last = group
    while (last + 1 < positions.length && (positions[last + 1] as number) < end) {
      last += 1
      end = lineEndAfter((positions[last] as number) + oldLength)
    }
    let after = ''
    let cursor = start
    for (let index = group; index <= last; index++) {
      const at = positions[index] as number
      after += before.slice(cursor, at) + newText
      cursor = at + oldLength
    }
    after += before.slice(cursor, end)
    const change = trimmed(lineOf(start), splitLines(before.slice(start, end)), splitLines(after))
    if (change) changes.push(change)
    group = last + 1
  }
  if (changes.length === 0) return ''
  return [`--- a/${path}`, `+++ b/${path}`, ...hunks(splitLines(before), changes)].join('\n') + '\n'
}

/** A block with the lines both sides share at its ends moved out to context; undefined when nothing is left. */
function trimmed(oldStart: number, removed: string[], added: string[]): LineChange | undefined {
  let head = 0
  while (head < removed.length && head < added.length && removed[head] === added[head]) head += 1
  let tail = 0
  while (tail < removed.length - head && tail < added.length - head && removed[removed.length - 1 - tail] === added[added.length - 1 - tail]) tail += 1
  if (head === removed.length && head === added.length) return undefined
  return { oldStart: oldStart + head, removed: removed.slice(head, removed.length - tail), added: added.slice(head, added.length - tail) }
}

function hunks(oldLines: readonly string[], changes: readonly LineChange[]): string[] {
  const out: string[] = []
  let shift = 0
  let index = 0
  while (index < changes.length) {
    let last = index
    while (last + 1 < changes.length && (changes[last + 1] as LineChange).oldStart - end(changes[last] as LineChange) <= 2 * diffContextLines) last += 1
    const first = changes[index] as LineChange
    const from = Math.max(0, first.oldStart - diffContextLines)
    const to = Math.min(oldLines.length, end(changes[last] as LineChange) + diffContextLines)
    const body: string[] = []
    let oldCount = 0
    let newCount = 0
    let cursor = from
    const context = (upTo: number) => {
      for (; cursor < upTo; cursor++) {
        line(body, ' ', oldLines[cursor] as string)
        oldCount += 1
        newCount += 1
      }
    }
    const newFrom = from + shift
    for (let at = index; at <= last; at++) {
      const change = changes[at] as LineChange
      context(change.oldStart)
      for (const removed of change.removed) line(body, '-', removed)
      for (const added of change.added) line(body, '+', added)
      oldCount += change.removed.length
      newCount += change.added.length
      shift += change.added.length - change.removed.length
      cursor = end(change)
    }
    context(to)
    out.push(`@@ -${range(from, oldCount)} +${range(newFrom, newCount)} @@`, ...body)
    index = last + 1
  }
  return out
}

function end(change: LineChange): number {
  return change.oldStart + change.removed.length
}

/** A hunk range: 1-based start and count; an empty side names the line before it (`n,0`). */
function range(start: number, count: number): string {
  return count === 0 ? `${start},0` : `${start + 1},${count}`
}

function line(body: string[], mark: string, text: string): void {
  if (text.endsWith('\n')) body.push(mark + text.slice(0, -1))
  else body.push(mark + text, '\\ No newline at end of file')
}
