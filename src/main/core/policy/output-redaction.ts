import type { ActionHooks, PostToolResponseEvent } from '../action-runtime/action-hooks'
import type { ActionResult } from '../action-runtime/action-spec'
import { credentialShapes, redacted, replaceKnownSecrets } from '../action-runtime/redaction'

/**
 * POST_TOOL_RESPONSE redaction of what leaves Airlock (SPEC §6.3, issue 10): before a result goes
 * back to the agent (and so into history, logs and `.exec_history`, which record the result),
 * known secrets and well-known credential shapes are replaced by `[redacted]` in every string of
 * `data`, in the error message and in the diagnostics. `meta.redaction` says how many and of which kinds, so the agent
 * and the operator know the output was changed and why.
 *
 * Known secrets: the agent's (its MCP servers' `env` and `headers` values) and the values of the
 * Airlock process's environment variables the operator marked secret (setting
 * `policy.secret_env_vars`); both arrive as `ActionAgent.secrets`. Shapes (`credentialShapes`): AWS
 * keys, GitHub, Slack, OpenAI/Anthropic-style `sk-…`, Google and Stripe keys, PEM private key
 * blocks. Shapes are best effort by nature: they catch the common forms, not every secret.
 */
export function installOutputRedaction(hooks: ActionHooks): () => void {
  return hooks.onPostToolResponse((event) => redactResult(event))
}

const shapes = credentialShapes()

/** One string with secrets replaced, counting what was replaced by kind. */
export function redactOutputText(text: string, secrets: readonly string[], counts: Map<string, number>): string {
  let out = replaceKnownSecrets(text, secrets, (count) => counts.set('known_secret', (counts.get('known_secret') ?? 0) + count))
  for (const { kind, pattern } of shapes) {
    out = out.replace(pattern, (match: string, label?: unknown) => {
      counts.set(kind, (counts.get(kind) ?? 0) + 1)
      return typeof label === 'string' && match.startsWith(label) ? `${label}${redacted}` : redacted
    })
  }
  return out
}

function redactResult({ agent, result }: PostToolResponseEvent): ActionResult | undefined {
  const counts = new Map<string, number>()
  const secrets = agent.secrets ?? []
  const data = result.data === undefined ? undefined : redactData(result.data, secrets, counts)
  const error = result.error ? { ...result.error, message: redactOutputText(result.error.message, secrets, counts) } : undefined
  // Diagnostics can quote what a program did (the directory its shell ended in).
  const diagnostics = result.diagnostics.map((line) => redactOutputText(line, secrets, counts))
  // The policy's parsed commands and reason quote the input.
  const policy = result.meta.policy === undefined ? undefined : redactData(result.meta.policy, secrets, counts)
  if (counts.size === 0) return undefined
  const replaced = [...counts.values()].reduce((sum, n) => sum + n, 0)
  return {
    ...result,
    ...(data !== undefined ? { data } : {}),
    ...(error ? { error } : {}),
    meta: { ...result.meta, ...(policy !== undefined ? { policy } : {}), redaction: { replaced, kinds: [...counts.keys()].sort() } },
    diagnostics: [...diagnostics, `${replaced} secret${replaced === 1 ? '' : 's'} redacted from this result (${[...counts.keys()].sort().join(', ')})`]
  }
}

/** A copy of `value` with every string (keys included) redacted; shared structure is not preserved. */
function redactData(value: unknown, secrets: readonly string[], counts: Map<string, number>, depth = 0): unknown {
  if (typeof value === 'string') return redactOutputText(value, secrets, counts)
  if (typeof value !== 'object' || value === null || depth > 64) return value
  if (Array.isArray(value)) return value.map((item) => redactData(item, secrets, counts, depth + 1))
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) out[redactOutputText(key, secrets, counts)] = redactData(item, secrets, counts, depth + 1)
  return out
}
