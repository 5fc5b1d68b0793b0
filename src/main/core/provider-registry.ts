import { ExecutionResourceError } from './errors'
import type { ExecutionResourceProvider, ResourceHandleRecord } from './types'

/** What start-up recovery did for one provider: what it ended, or why it could not. */
export type ProviderRecovery = { providerId: string; ended: string[]; error?: string }

/**
 * The providers a manager knows: validated on registration, indexed by id and by kind in
 * registration order (the fallback provider order), and asked together to recover after a crash.
 */
export class ProviderRegistry {
  private readonly byId = new Map<string, ExecutionResourceProvider>()
  private readonly byKind = new Map<string, ExecutionResourceProvider[]>()

  /** Adds a provider under each of its kinds. The same object twice is a no-op; another with the same id is an error. */
  register(provider: ExecutionResourceProvider): void {
    const valid =
      typeof provider?.providerId === 'string' &&
      provider.providerId.length > 0 &&
      Array.isArray(provider.supportedKinds) &&
      provider.supportedKinds.length > 0 &&
      (['probe', 'ensure', 'healthCheck', 'release'] as const).every((method) => typeof provider[method] === 'function')
    if (!valid) {
      throw new ExecutionResourceError('invalid_provider', 'A provider needs a providerId, supportedKinds and probe/ensure/healthCheck/release.')
    }
    const existing = this.byId.get(provider.providerId)
    if (existing === provider) return
    if (existing) {
      throw new ExecutionResourceError('invalid_provider', `A different provider with id ${JSON.stringify(provider.providerId)} is already registered.`, {
        providerId: provider.providerId
      })
    }
    this.byId.set(provider.providerId, provider)
    for (const kind of provider.supportedKinds) this.byKind.set(kind, [...(this.byKind.get(kind) ?? []), provider])
  }

  /** Every provider by id. */
  get ids(): ReadonlyMap<string, ExecutionResourceProvider> {
    return this.byId
  }

  /** The providers of one kind, in registration order. */
  ofKind(kind: string): readonly ExecutionResourceProvider[] {
    return this.byKind.get(kind) ?? []
  }

  /** All providers, in registration order. */
  all(): ExecutionResourceProvider[] {
    return [...this.byId.values()]
  }

  /**
   * Start-up recovery (SPEC §10) through the provider contract: every provider with `recover`
   * ends what a crashed process on this home left (its leftover handle records are passed along).
   * One provider's failure is reported, never stops the others.
   */
  recover(leftovers: readonly ResourceHandleRecord[]): Promise<ProviderRecovery[]> {
    return Promise.all(
      this.all()
        .filter((provider) => typeof provider.recover === 'function')
        .map(async (provider) => {
          try {
            return {
              providerId: provider.providerId,
              ended: await provider.recover!({ leftovers: leftovers.filter((h) => h.providerId === provider.providerId) })
            }
          } catch (error) {
            return { providerId: provider.providerId, ended: [], error: error instanceof Error ? error.message : String(error) }
          }
        })
    )
  }
}
