/**
 * Bash pathname patterns for the command rules: a word still holding an unquoted `*`, `?` or
 * `[...]` names every file it could match, so a rule compares it against the names it protects
 * (`.s?h` is `.ssh`, `/r??t` is `/root`, `.gi?` is `.git`) instead of reading it as a literal name.
 * Matching is linear in pattern × name, so hostile patterns cost nothing.
 */

/** True when a word holds glob characters (after the analysis, only unquoted ones remain as such). */
export const hasGlob = (value: string): boolean => /[*?[]/.test(value)

type GlobToken = { star: true } | { star: false; matches: (c: string) => boolean }

/** The tokens of a one-segment glob: `*`, `?`, `[...]` (ranges, `!`/`^` negation) and literal characters. */
function globTokens(pattern: string): GlobToken[] {
  const tokens: GlobToken[] = []
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    const end = c === '[' ? pattern.indexOf(']', i + 2) : -1
    if (c === '*') {
      if (!tokens[tokens.length - 1]?.star) tokens.push({ star: true })
    } else if (c === '?') tokens.push({ star: false, matches: () => true })
    else if (end > 0) {
      const body = pattern.slice(i + 1, end)
      const negate = body.startsWith('!') || body.startsWith('^')
      const set = negate ? body.slice(1) : body
      tokens.push({ star: false, matches: (x) => inClass(set, x) !== negate })
      i = end
    } else tokens.push({ star: false, matches: (x) => x === c })
  }
  return tokens
}

function inClass(set: string, c: string): boolean {
  for (let i = 0; i < set.length; i++) {
    if (set[i + 1] === '-' && i + 2 < set.length) {
      if (c >= set[i]! && c <= set[i + 2]!) return true
      i += 2
    } else if (set[i] === c) return true
  }
  return false
}

/**
 * True when a one-segment glob matches `name` (bash defaults: a leading `.` is only matched by a
 * literal `.`). Iterative with one backtrack point, so time stays O(pattern × name) on any input.
 */
export function globMatches(pattern: string, name: string): boolean {
  if (name.startsWith('.') && !pattern.startsWith('.')) return false
  const tokens = globTokens(pattern)
  let t = 0
  let n = 0
  let starAt = -1
  let starName = 0
  while (n < name.length) {
    const token = tokens[t]
    if (token && !token.star && token.matches(name[n]!)) {
      t++
      n++
    } else if (token?.star) {
      starAt = t++
      starName = n
    } else if (starAt >= 0) {
      t = starAt + 1
      n = ++starName
    } else return false
  }
  while (tokens[t]?.star) t++
  return t === tokens.length
}

/** True when a segment (possibly a glob) names `name`. */
export function segmentMatches(segment: string, name: string): boolean {
  return segment === name || (hasGlob(segment) && globMatches(segment, name))
}

/** `segmentMatches`, ignoring case (a case-insensitive file system, as on macOS, opens `.GIT` as `.git`). */
export function segmentMatchesFolded(segment: string, name: string): boolean {
  return segmentMatches(segment.toLowerCase(), name.toLowerCase())
}
