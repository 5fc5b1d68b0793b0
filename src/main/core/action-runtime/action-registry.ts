import { ExecutionResourceError } from '../errors'
import type { AnyActionSpec } from './action-spec'

/** Resolves tool names no spec was registered under (proxied `<server>__<tool>`), or answers undefined. */
export type ActionResolver = (name: string) => AnyActionSpec | undefined

/** Tool names: what MCP clients accept (letters, digits, `_`, `-`, `.`), at most 128 characters. */
const toolNamePattern = /^[A-Za-z0-9_.-]{1,128}$/

/** The registry of action specs by tool name (SPEC §3.7). Registering returns a disposer. */
export class ActionRegistry {
  private readonly specs = new Map<string, AnyActionSpec>()
  private readonly resolvers: ActionResolver[] = []

  /** Adds a spec; a second, different spec under the same name is an error. */
  register(spec: AnyActionSpec): () => void {
    if (!toolNamePattern.test(spec.name))
      throw new ExecutionResourceError('invalid_argument', `Invalid tool name ${JSON.stringify(spec.name)}.`, { name: spec.name })
    const existing = this.specs.get(spec.name)
    if (existing && existing !== spec)
      throw new ExecutionResourceError('invalid_argument', `A tool named ${spec.name} is already registered.`, { name: spec.name })
    this.specs.set(spec.name, spec)
    return () => {
      if (this.specs.get(spec.name) === spec) this.specs.delete(spec.name)
    }
  }

  /** Adds a resolver for names without a registered spec; returns its disposer. */
  registerResolver(resolver: ActionResolver): () => void {
    this.resolvers.push(resolver)
    return () => {
      const index = this.resolvers.indexOf(resolver)
      if (index >= 0) this.resolvers.splice(index, 1)
    }
  }

  /** The spec of a tool, registered or resolved; undefined when none. */
  resolve(name: string): AnyActionSpec | undefined {
    if (!toolNamePattern.test(name)) return undefined
    const spec = this.specs.get(name)
    if (spec) return spec
    for (const resolver of this.resolvers) {
      const resolved = resolver(name)
      if (resolved) return resolved
    }
    return undefined
  }

  /** Every registered spec (resolved ones are not listed). */
  list(): AnyActionSpec[] {
    return [...this.specs.values()]
  }
}

/** True when a tool is among the agent's enabled tools (`server__*` enables every tool of an upstream server). */
export function toolEnabled(tools: ReadonlySet<string>, name: string): boolean {
  if (tools.has(name)) return true
  const separator = name.indexOf('__')
  return separator > 0 && tools.has(`${name.slice(0, separator)}__*`)
}
