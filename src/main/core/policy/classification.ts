import { posix } from 'node:path'
import picomatch from 'picomatch'
import { classificationRank, higherClassification, type Classification, type ClassificationLabels } from '@shared/agents'

/**
 * Classification labels (SPEC §6.3) resolved for one agent: the global labels (setting
 * `policy.labels`), its profile's (role's joined in) and its MCP servers' `classification`. The
 * highest level wins where several name the same thing. Everything unlabelled is `PUBLIC`.
 *
 * Paths are workspace-relative globs (picomatch, dot files included): `secrets/**`, `**\/*.pem`.
 * A directory walk (search over a folder) meets a label when the folder lies inside a glob's
 * static base or the base lies inside the folder. Domains are exact host names or `*.suffix`
 * (which also covers the suffix itself). Databases are globs over the `database` path an agent gives.
 */
export class ClassificationLabelSet {
  private readonly paths: PathLabel[]
  private readonly databases: PathLabel[]
  private readonly domains: { pattern: string; level: Classification }[]
  private readonly servers: Map<string, Classification>

  constructor(sources: readonly ClassificationLabels[], servers: readonly { name: string; classification?: Classification }[] = []) {
    const entries = (kind: keyof ClassificationLabels) => sources.flatMap((labels) => Object.entries(labels[kind] ?? {}) as [string, Classification][])
    this.paths = entries('paths').map(([glob, level]) => pathLabel(glob, level))
    this.databases = entries('databases').map(([glob, level]) => pathLabel(glob, level))
    this.domains = entries('domains').map(([pattern, level]) => ({ pattern: pattern.toLowerCase(), level }))
    this.servers = new Map()
    for (const [name, level] of entries('mcpServers')) this.servers.set(name, higherClassification(this.servers.get(name) ?? 'PUBLIC', level))
    for (const server of servers)
      if (server.classification) this.servers.set(server.name, higherClassification(this.servers.get(server.name) ?? 'PUBLIC', server.classification))
  }

  /** True when no label is set at all (the engine skips classification work). */
  get empty(): boolean {
    return this.paths.length === 0 && this.databases.length === 0 && this.domains.length === 0 && this.servers.size === 0
  }

  /**
   * The level of one workspace file (relative path). A database label applies too: a database is
   * a file a command can read. A glob (`sec*` + `/x`, `*` + `/x`) gets the level of every label it
   * can reach: a label whose static base it matches, or the ancestor of that base it names.
   */
  ofPath(path: string): Classification {
    const relative = normalise(path)
    const direct = [...this.paths, ...this.databases].filter((label) => label.match(relative) || label.match(`${relative}/`))
    const reached = picomatch.scan(relative).isGlob ? this.paths.filter((label) => globReaches(relative, label.base)) : []
    return highest([...direct, ...reached].map((label) => label.level))
  }

  /** The highest level anything under a workspace folder can have (what a recursive read may meet). */
  ofTree(folder: string): Classification {
    const relative = normalise(folder)
    const inside = (child: string, parent: string) => parent === '' || parent === '.' || child === parent || child.startsWith(`${parent}/`)
    return highest(
      this.paths.filter((label) => inside(label.base, relative) || inside(relative, label.base) || label.match(relative)).map((label) => label.level)
    )
  }

  /**
   * The path labels (database labels too: a database is a file) above `level`: each glob's
   * matcher, its static base, and whether it names the base whole (`secrets`, `secrets/**`).
   */
  pathLabelsAbove(level: Classification): { match: (path: string) => boolean; base: string; whole: boolean }[] {
    return [...this.paths, ...this.databases]
      .filter((label) => above(label.level, level))
      .map((label) => ({ match: label.match, base: label.base, whole: label.whole }))
  }

  /** The level of a SQLite database path as the agent names it. */
  ofDatabase(path: string): Classification {
    const relative = normalise(path)
    return highest(this.databases.filter((label) => label.match(relative)).map((label) => label.level))
  }

  /** The level of a host name (`*.corp.example` covers `corp.example` and every subdomain). */
  ofDomain(host: string): Classification {
    const name = host.toLowerCase().replace(/\.$/, '')
    return highest(
      this.domains
        .filter(({ pattern }) => (pattern.startsWith('*.') ? name === pattern.slice(2) || name.endsWith(pattern.slice(1)) : name === pattern))
        .map((label) => label.level)
    )
  }

  /** The level of an upstream MCP server. */
  ofServer(name: string): Classification {
    return this.servers.get(name) ?? 'PUBLIC'
  }
}

type PathLabel = { match: (path: string) => boolean; base: string; whole: boolean; level: Classification }

/** One path or database label: its matcher, static base, and whether it is the base itself or everything below it. */
function pathLabel(glob: string, level: Classification): PathLabel {
  const pattern = normalise(glob)
  const scan = picomatch.scan(pattern)
  const whole = !scan.isGlob || pattern === `${scan.base}/**`
  return { match: picomatch(pattern, { dot: true }), base: scan.isGlob ? scan.base : pattern, whole, level }
}

/**
 * True when the glob `word` can name the labelled base folder `base`, something inside it, or a
 * folder above it: its first segments (as many as the base has) match the base's.
 */
function globReaches(word: string, base: string): boolean {
  if (base === '') return true
  const wordParts = word.split('/')
  const baseParts = base.split('/')
  const n = Math.min(wordParts.length, baseParts.length)
  return picomatch(wordParts.slice(0, n).join('/'), { dot: true })(baseParts.slice(0, n).join('/'))
}

/** The highest of some levels; `PUBLIC` for none. */
export function highest(levels: Iterable<Classification>): Classification {
  let out: Classification = 'PUBLIC'
  for (const level of levels) out = higherClassification(out, level)
  return out
}

/** True when `a` is strictly above `b`. */
export function above(a: Classification, b: Classification): boolean {
  return classificationRank(a) > classificationRank(b)
}

/** A workspace-relative path in one spelling: no leading `./` or `/`, no `.` segments, no trailing `/`. */
function normalise(path: string): string {
  const cleaned = posix.normalize(path.replace(/\\/g, '/')).replace(/^\/+/, '').replace(/\/+$/, '')
  return cleaned === '.' ? '' : cleaned.replace(/^\.\//, '')
}
