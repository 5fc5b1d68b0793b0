/** One line of a hunk as the diff pane draws it, with its line numbers on each side. */
export type DiffLine =
  | { kind: 'context'; text: string; oldLine: number; newLine: number }
  | { kind: 'add'; text: string; newLine: number }
  | { kind: 'del'; text: string; oldLine: number }
  /** `\ No newline at end of file`, said of the line above it. */
  | { kind: 'no-newline'; text: string }

/** A hunk: its `@@ -a,b +c,d @@` header, the section text after it, and its lines. */
export type DiffHunk = { header: string; section: string; lines: DiffLine[] }

/** One file of a diff (`--- a/x`, `+++ b/x`) with its hunks and how many lines it adds and removes. */
export type DiffFile = { oldPath: string; newPath: string; hunks: DiffHunk[]; added: number; removed: number }

/** A parsed unified diff: its files, and any line outside a file or hunk (a cut marker), kept in order as notes. */
export type ParsedDiff = { files: DiffFile[]; notes: string[] }

const hunkHeader = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/

/**
 * Parses the unified diff of an approval preview (what `write_file`/`edit_file` would change), or
 * returns undefined when the text is not one (a code preview, a skill's files). Lines are taken by
 * the counts of their hunk header, never by how they look: a file line reading `+++ b/other` inside
 * a hunk stays a line of that hunk, so a written file cannot pass for another file's header.
 */
export function parseUnifiedDiff(text: string): ParsedDiff | undefined {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const files: DiffFile[] = []
  const notes: string[] = []
  let file: DiffFile | undefined
  let hunk: DiffHunk | undefined
  let oldLeft = 0
  let newLeft = 0
  let oldLine = 0
  let newLine = 0
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    if (hunk && (oldLeft > 0 || newLeft > 0)) {
      const mark = line[0]
      if (mark === ' ' && oldLeft > 0 && newLeft > 0) {
        hunk.lines.push({ kind: 'context', text: line.slice(1), oldLine: oldLine++, newLine: newLine++ })
        oldLeft--
        newLeft--
        continue
      }
      if (mark === '-' && oldLeft > 0) {
        hunk.lines.push({ kind: 'del', text: line.slice(1), oldLine: oldLine++ })
        file!.removed++
        oldLeft--
        continue
      }
      if (mark === '+' && newLeft > 0) {
        hunk.lines.push({ kind: 'add', text: line.slice(1), newLine: newLine++ })
        file!.added++
        newLeft--
        continue
      }
      if (mark === '\\') {
        hunk.lines.push({ kind: 'no-newline', text: line.slice(1).trim() })
        continue
      }
      // The hunk ends early (a cut preview): what follows is a note, never more of the hunk.
      hunk = undefined
      oldLeft = newLeft = 0
    }
    if (hunk && line.startsWith('\\')) {
      hunk.lines.push({ kind: 'no-newline', text: line.slice(1).trim() })
      continue
    }
    const header = hunkHeader.exec(line)
    if (header && file) {
      hunk = { header: line.slice(0, line.length - header[5]!.length).trim(), section: header[5]!, lines: [] }
      file.hunks.push(hunk)
      oldLine = Number(header[1])
      newLine = Number(header[3])
      oldLeft = header[2] === undefined ? 1 : Number(header[2])
      newLeft = header[4] === undefined ? 1 : Number(header[4])
      // An empty side (`-0,0`) names the line before it: the first line shown is the next one.
      if (oldLeft === 0) oldLine++
      if (newLeft === 0) newLine++
      continue
    }
    if (line.startsWith('--- ') && lines[index + 1]?.startsWith('+++ ')) {
      file = { oldPath: stripPrefix(line.slice(4)), newPath: stripPrefix(lines[index + 1]!.slice(4)), hunks: [], added: 0, removed: 0 }
      files.push(file)
      hunk = undefined
      index++
      continue
    }
    notes.push(line)
  }
  if (files.length === 0 || files.every((f) => f.hunks.length === 0)) return undefined
  return { files, notes }
}

/** `a/src/x.ts` → `src/x.ts`; `/dev/null` stays (a new or deleted file). */
function stripPrefix(path: string): string {
  const name = path.split('\t')[0]!
  return /^[ab]\//.test(name) ? name.slice(2) : name
}
