/**
 * Digits of a 3×5 pixel font (and `+`), row by row, for the count badge on the tray icon: the
 * tray has no text of its own on Linux and Windows, so the count is drawn into the icon.
 */
const glyphs: Record<string, string[]> = {
  '0': ['111', '101', '101', '101', '111'],
  '1': ['010', '110', '010', '010', '111'],
  '2': ['111', '001', '111', '100', '111'],
  '3': ['111', '001', '111', '001', '111'],
  '4': ['101', '101', '111', '001', '001'],
  '5': ['111', '100', '111', '001', '111'],
  '6': ['111', '100', '111', '101', '111'],
  '7': ['111', '001', '010', '010', '010'],
  '8': ['111', '101', '111', '101', '111'],
  '9': ['111', '101', '111', '001', '111'],
  '+': ['000', '010', '111', '010', '000']
}

/** The badge's colours, as BGRA (Electron's `nativeImage` bitmap order). */
export const badgeColours = { fill: [0x2e, 0x2e, 0xd9, 0xff], text: [0xff, 0xff, 0xff, 0xff] } as const

/** The text a badge shows for a count: the number up to 9, then `9+`; nothing for 0. */
export function badgeText(count: number): string {
  if (count <= 0) return ''
  return count > 9 ? '9+' : String(count)
}

/**
 * Draws the pending count into a square BGRA bitmap (`size`×`size`, 4 bytes a pixel) as a filled
 * circle in the top-right corner with the count in white; returns a new buffer (the input is kept).
 * A count of 0 returns the icon unchanged.
 */
export function drawCountBadge(pixels: Buffer, size: number, count: number): Buffer {
  const out = Buffer.from(pixels)
  const text = badgeText(count)
  if (text === '') return out
  const scale = Math.max(1, Math.floor(size / 16))
  const radius = Math.ceil(size * 0.3)
  const cx = size - radius
  const cy = radius
  const put = (x: number, y: number, colour: readonly number[]) => {
    if (x < 0 || y < 0 || x >= size || y >= size) return
    out.set(colour, (y * size + x) * 4)
  }
  for (let y = cy - radius; y <= cy + radius; y++) {
    for (let x = cx - radius; x <= cx + radius; x++) {
      if ((x - cx + 0.5) ** 2 + (y - cy + 0.5) ** 2 <= radius ** 2) put(x, y, badgeColours.fill)
    }
  }
  const width = (text.length * 4 - 1) * scale
  const left = cx - Math.floor(width / 2)
  const top = cy - Math.floor((5 * scale) / 2)
  for (const [index, char] of [...text].entries()) {
    const rows = glyphs[char] ?? []
    for (const [row, bits] of rows.entries()) {
      for (const [column, bit] of [...bits].entries()) {
        if (bit !== '1') continue
        for (let dy = 0; dy < scale; dy++) {
          for (let dx = 0; dx < scale; dx++) put(left + (index * 4 + column) * scale + dx, top + row * scale + dy, badgeColours.text)
        }
      }
    }
  }
  return out
}
