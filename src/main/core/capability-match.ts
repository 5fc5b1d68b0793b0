/** Why a probe's capabilities do not satisfy a requirement, or undefined when they do. */
export type CapabilityMismatch = string | undefined

const aliases: Record<string, string> = { language: 'languages', languages: 'language', toolchain: 'toolchains', toolchains: 'toolchain' }

/**
 * Checks a requirement's capabilities against a probe's (SPEC §3.3): objects match as a
 * recursive subset, a list as a subset (or a value by membership), scalars by equality;
 * `language`/`languages` and `toolchain`/`toolchains` are the same key; a toolchain entry with
 * `minimumVersion` or `exactVersion` is compared with the probe's observed `version`.
 */
export function matchCapabilities(required: Record<string, unknown> | undefined, provided: Record<string, unknown> | undefined): CapabilityMismatch {
  if (!required) return undefined
  for (const [key, wanted] of Object.entries(required)) {
    const present = provided && key in provided ? provided[key] : provided && aliases[key] ? provided[aliases[key]] : undefined
    const mismatch = matchValue(wanted, present, key)
    if (mismatch) return mismatch
  }
  return undefined
}

function matchValue(wanted: unknown, present: unknown, path: string): CapabilityMismatch {
  if (isPlainObject(wanted)) {
    if ('minimumVersion' in wanted || 'exactVersion' in wanted) return matchVersion(wanted, present, path)
    if (!isPlainObject(present)) return `${path}: not reported`
    for (const [key, value] of Object.entries(wanted)) {
      const mismatch = matchValue(value, present[key], `${path}.${key}`)
      if (mismatch) return mismatch
    }
    return undefined
  }
  if (Array.isArray(wanted)) {
    const offered = Array.isArray(present) ? present : present === undefined ? [] : [present]
    const missing = wanted.filter((item) => !offered.some((o) => deepEqual(item, o)))
    return missing.length === 0 ? undefined : `${path}: missing ${JSON.stringify(missing)}`
  }
  if (Array.isArray(present)) {
    return present.some((o) => deepEqual(wanted, o)) ? undefined : `${path}: ${JSON.stringify(wanted)} not among ${JSON.stringify(present)}`
  }
  return deepEqual(wanted, present) ? undefined : `${path}: wanted ${JSON.stringify(wanted)}, found ${JSON.stringify(present)}`
}

function matchVersion(wanted: Record<string, unknown>, present: unknown, path: string): CapabilityMismatch {
  const observed = isPlainObject(present) ? present : undefined
  if (!observed || observed.available === false || typeof observed.version !== 'string') return `${path}: not available`
  const minimum = wanted.minimumVersion
  if (typeof minimum === 'string' && compareVersions(observed.version, minimum) < 0) {
    return `${path}: version ${observed.version} is below ${minimum}`
  }
  const exact = wanted.exactVersion
  if (typeof exact === 'string') {
    // "3.10" pins the segments it names: 3.10.13 matches, 3.11.0 does not.
    const given = versionParts(exact)
    const have = versionParts(observed.version)
    if (given.some((part, index) => have[index] !== part)) return `${path}: version ${observed.version} is not ${exact}`
  }
  return undefined
}

/** Compares dotted versions numerically (`3.10.13` > `3.9`); missing segments count as 0. */
export function compareVersions(a: string, b: string): number {
  const left = versionParts(a)
  const right = versionParts(b)
  for (let index = 0; index < Math.max(left.length, right.length); index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0)
    if (difference !== 0) return Math.sign(difference)
  }
  return 0
}

function versionParts(version: string): number[] {
  return (/^\D*([\d.]+)/.exec(version)?.[1] ?? '').split('.').filter(Boolean).map(Number)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]))
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((key) => deepEqual(a[key], b[key]))
  }
  return false
}
