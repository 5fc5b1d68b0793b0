/**
 * Serialises async tasks per key: a task runs after every earlier task of the same key has
 * settled (so ensure and release of one reuse key never interleave), while different keys run freely.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>()

  /** Runs `task` once the earlier tasks of `key` are done; resolves or rejects with it. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve()
    const result = previous.then(task)
    const tail = result.then(
      () => undefined,
      () => undefined
    )
    this.tails.set(key, tail)
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    })
    return result
  }
}
