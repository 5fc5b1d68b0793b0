import { shownWithOrigin } from '@shared/escape-sequences'

/**
 * Redaction of what Airlock records about a call (history rows, events, logs, `.exec_history`).
 * What the agent gets back is never redacted (SPEC §5.3: output is not hidden from the agent);
 * what is kept is. Three mechanisms, strongest first:
 *  1. values Airlock knows are secret (an agent's MCP `env` and `headers`, tokens) are replaced
 *     wherever they appear, inside any string;
 *  2. values under keys named as secrets (`token`, `password`, `authorization`, `headers`, `env`...)
 *     are replaced whole;
 *  3. common credential shapes in free text (`Authorization: Bearer …`, `--password=…`, provider key
 *     prefixes) are replaced. This third one is best effort by nature: it catches what an agent
 *     typed, not what Airlock was told.
 */

/** The replacement text. */
export const redacted = '[redacted]'

/**
 * Well-known credential shapes, each with the kind it is reported as: what the output redaction
 * (core/policy/output-redaction.ts) replaces in results, and what records redact too. A pattern
 * with a group keeps that group (a label such as `aws_secret_access_key = `). A fresh copy per
 * call: the patterns are global (stateful) regular expressions. They are bounded by "not a letter
 * or digit" rather than `\b`, so a token glued to `_` (`x_ghp_…`, `AKIA…_old`) is still found.
 */
export function credentialShapes(): { kind: string; pattern: RegExp }[] {
  return [
    { kind: 'private_key', pattern: new RegExp(privateKeyBlock, 'g') },
    { kind: 'aws_access_key', pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Za-z0-9])/g },
    { kind: 'aws_secret_key', pattern: /(aws_secret_access_key\s*[=:]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi },
    { kind: 'github_token', pattern: /(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{30,255})(?![A-Za-z0-9])/g },
    { kind: 'slack_token', pattern: /(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}/g },
    { kind: 'api_key', pattern: /(?<![A-Za-z0-9])sk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{20,}/g },
    { kind: 'google_api_key', pattern: /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}/g },
    { kind: 'stripe_key', pattern: /(?<![A-Za-z0-9])[sr]k_live_[0-9A-Za-z]{16,}/g }
  ]
}

/**
 * A PEM private key block, from its BEGIN line to its END line, or, unterminated (cut output, or
 * an agent hiding what follows a header), to the end of its base64 block: what comes after the
 * first line that is not base64 stays visible, so a summary, a preview or a batch key still shows
 * and tells apart the text behind a lone header. Lines are separated by real line breaks or
 * written ones (`\n` in JSON or `echo -e` text) and may be indented or carry a diff's `-`/`+`
 * prefix; a one-line block separates its parts by spaces. Only base64 lines and the two
 * encrypted-PEM fields may stand between the header and the END line, so a command placed between
 * two key lines is not hidden either. A base64-looking line after a lone header (`reboot`) is
 * still taken as key material: the queue shows the parsed commands word by word beside the
 * summary. Every part of a line can be matched one way only, so the pattern stays linear on
 * hostile text (no nested ambiguity to backtrack through).
 */
const privateKeyBlock = (() => {
  const header = '-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----'
  const footer = '-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----'
  const breakOnly = String.raw`(?:\r?\n|\\(?:r\\)?n)`
  const lineBreak = String.raw`[ \t]*${breakOnly}`
  const lineEnd = String.raw`[ \t]*(?=${breakOnly}|$)`
  const base64 = '[A-Za-z0-9+/=]+'
  // Encrypted PEM's fields, with the empty line that ends them.
  const field = `(?:Proc-Type|DEK-Info): [A-Za-z0-9,-]+${breakOnly}?`
  // The next line's content: indentation or a diff's `-` (a `+` is base64 already), then base64 or a field.
  const nextLine = String.raw`${lineBreak}(?:-|[ \t]*)(?:${base64}|${field})`
  const sameLine = String.raw`[ \t]+${base64}`
  const terminated = String.raw`(?:${nextLine}|${sameLine})*(?:${lineBreak}(?:[-+]|[ \t]*)|[ \t]+)${footer}`
  const unterminated = `(?:${sameLine}${lineEnd})?(?:${nextLine}${lineEnd})*`
  return `${header}(?:${terminated}|${unterminated})`
})()

const secretKey = /^(?:.*[-_]?)?(?:token|secret|password|passwd|pwd|authorization|auth|cookie|api[-_]?key|apikey|private[-_]?key|credentials?|headers|env)$/i

const secretShapes: RegExp[] = [
  /\b(authorization|proxy-authorization)(\s*[:=]\s*)(?:(bearer|basic|token)\s+)?[^\s'"]+/gi,
  /\b(bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /(--?(?:password|passwd|token|secret|api[-_]?key|access[-_]?key)(?:=|\s+))[^\s'"]+/gi,
  /\b((?:[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|API_KEY|APIKEY|ACCESS_KEY)[A-Z0-9_]*)=)[^\s'"]+/g,
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  ...credentialShapes().map((shape) => shape.pattern)
]

/** Known secret values shorter than this are not searched for: they would redact ordinary words. */
const shortestKnownSecret = 6

/**
 * The values to redact for a set of secrets: each value, and for a header value with a scheme
 * (`Bearer <token>`) the credential alone too, since an upstream may echo it without its scheme.
 */
export function secretVariants(values: Iterable<string>): string[] {
  const variants = new Set<string>()
  for (const value of values) {
    if (value === '') continue
    variants.add(value)
    const credential = /^[A-Za-z][A-Za-z0-9_-]*\s+(\S.*)$/.exec(value)?.[1]
    if (credential) variants.add(credential)
  }
  return [...variants]
}

/**
 * Replaces every occurrence of a known secret (at least `shortestKnownSecret` long) in one string;
 * `onReplaced` hears how many of each were replaced.
 */
export function replaceKnownSecrets(text: string, secrets: readonly string[], onReplaced?: (count: number) => void): string {
  let out = text
  for (const secret of secrets) {
    if (secret.length < shortestKnownSecret || !out.includes(secret)) continue
    const parts = out.split(secret)
    onReplaced?.(parts.length - 1)
    out = parts.join(redacted)
  }
  return out.includes('\u001b') ? replaceAcrossEscapes(out, secrets, onReplaced) : out
}

/**
 * A known secret printed with terminal escapes between its characters (`grep --color`, a
 * word-diff, or on purpose) is the secret again once a terminal or the console's output view
 * renders it: the same search on the text as it shows, each match replaced with the escapes inside it.
 */
function replaceAcrossEscapes(text: string, secrets: readonly string[], onReplaced?: (count: number) => void): string {
  const { shown: visible, origin } = shownWithOrigin(text)
  const ranges: [number, number][] = []
  for (const secret of secrets) {
    if (secret.length < shortestKnownSecret) continue
    let count = 0
    for (let at = visible.indexOf(secret); at >= 0; at = visible.indexOf(secret, at + secret.length)) {
      ranges.push([origin[at]!, origin[at + secret.length - 1]! + 1])
      count += 1
    }
    if (count > 0) onReplaced?.(count)
  }
  if (ranges.length === 0) return text
  // Overlapping matches (two secrets sharing characters) become one replacement.
  ranges.sort((a, b) => a[0] - b[0])
  let out = ''
  let from = 0
  for (const [start, end] of ranges) {
    if (end <= from) continue
    out += `${text.slice(from, Math.max(from, start))}${start >= from ? redacted : ''}`
    from = end
  }
  return out + text.slice(from)
}

/** Replaces known secrets and credential shapes inside one string. */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = replaceKnownSecrets(text, secrets)
  for (const shape of secretShapes) {
    out = out.replace(shape, (match, ...groups: unknown[]) => {
      const [first, second] = groups as (string | undefined)[]
      // Keep the label (`Authorization: `, `--token=`) so the operator sees what was there.
      if (typeof first === 'string' && typeof second === 'string' && match.startsWith(first + second)) return `${first}${second}${redacted}`
      if (typeof first === 'string' && match.startsWith(first) && /[=\s]$/.test(first)) return `${first}${redacted}`
      return redacted
    })
  }
  return out
}

/** Options for `redactValue`: the known secrets and how long a string may stay. */
export type RedactOptions = { secrets?: readonly string[]; maxStringBytes?: number; maxDepth?: number }

/**
 * A JSON-safe copy of `value` with secrets redacted (all three mechanisms) and long strings
 * shortened to `maxStringBytes` with a note of their full length. Functions, symbols and cycles
 * are dropped.
 */
export function redactValue(value: unknown, options: RedactOptions = {}): unknown {
  const seen = new WeakSet<object>()
  const maxString = options.maxStringBytes ?? Number.POSITIVE_INFINITY
  const maxDepth = options.maxDepth ?? 12
  const walk = (item: unknown, depth: number): unknown => {
    if (typeof item === 'string') return shorten(redactText(item, options.secrets), maxString)
    if (item === null || typeof item === 'number' || typeof item === 'boolean') return item
    if (typeof item === 'bigint') return item.toString()
    if (typeof item !== 'object') return undefined
    if (seen.has(item) || depth > maxDepth) return '[…]'
    seen.add(item)
    if (Array.isArray(item)) return item.map((entry) => walk(entry, depth + 1) ?? null)
    const out: Record<string, unknown> = {}
    for (const [key, entry] of Object.entries(item)) {
      // Keys are text an agent chooses too (`{[secret]: 1}`, a column named after a secret).
      const safeKey = shorten(redactText(key, options.secrets), maxString)
      out[safeKey] = secretKey.test(key) && entry !== undefined && entry !== null && entry !== '' ? redacted : walk(entry, depth + 1)
    }
    return out
  }
  return walk(value, 0)
}

function shorten(text: string, maxBytes: number): string {
  if (text.length <= maxBytes) return text
  return `${text.slice(0, maxBytes)}… (${text.length} characters in all)`
}
