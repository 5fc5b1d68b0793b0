/**
 * Collects a stream's bytes up to a cap and drops the rest (still draining, so the writer never
 * blocks): memory stays bounded whatever the program prints.
 */
export class OutputCap {
  private readonly chunks: Buffer[] = []
  private kept = 0
  truncated = false

  constructor(private readonly maxBytes: number) {}

  /** Takes one chunk; bytes past the cap are counted as truncation and dropped. */
  push(chunk: Buffer): void {
    const room = this.maxBytes - this.kept
    if (chunk.length <= room) {
      this.chunks.push(chunk)
      this.kept += chunk.length
      return
    }
    if (room > 0) {
      this.chunks.push(chunk.subarray(0, room))
      this.kept += room
    }
    this.truncated = true
  }

  /** The kept bytes as UTF-8, never longer than the cap (a character cut at the cap is dropped). */
  text(): string {
    const bytes = Buffer.concat(this.chunks, this.kept)
    return bytes.subarray(0, this.truncated ? utf8Boundary(bytes) : bytes.length).toString('utf8')
  }
}

/** The length of the longest prefix of `bytes` that ends on a whole UTF-8 character. */
function utf8Boundary(bytes: Buffer): number {
  let end = bytes.length
  // Walk back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  let index = end - 1
  while (index >= 0 && index > end - 4 && (bytes[index]! & 0xc0) === 0x80) index--
  if (index < 0) return end
  const lead = bytes[index]!
  const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  if (index + needed > end) end = index
  return end
}
