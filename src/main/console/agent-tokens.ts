import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { agentTokenPrefix } from '@shared/agents'

/** A new agent token: `alk_` and 256 random bits in base64url. Shown once, stored only as its digest. */
export function newAgentToken(): string {
  return `${agentTokenPrefix}${randomBytes(32).toString('base64url')}`
}

/** The stored form of a token: the SHA-256 of its text, hex. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** Whether a presented token matches a stored digest; constant time over the digests. */
export function tokenMatches(presentedDigest: Buffer, storedDigest: string): boolean {
  const stored = Buffer.from(storedDigest, 'hex')
  // A stored value that is not a digest (a hand-edited row) can never match.
  if (stored.length !== presentedDigest.length) return false
  return timingSafeEqual(stored, presentedDigest)
}

/** The digest of a presented token as bytes, or undefined when it cannot be a token at all. */
export function presentedDigest(token: unknown): Buffer | undefined {
  if (typeof token !== 'string' || !token.startsWith(agentTokenPrefix) || token.length > 256) return undefined
  return createHash('sha256').update(token, 'utf8').digest()
}
