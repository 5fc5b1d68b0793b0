import fc from 'fast-check'
import type { z } from 'zod'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentProfileSchema } from '../../src/shared/agents'
import { airlockContract } from '../../src/shared/ipc'
import { builtinActions } from '../../src/main/actions'
import { createHost, type Host } from '../../src/main/host'
import { makeTempDir } from '../support/temp-home'

// Property-based fuzzing (fast-check, 2 000+ cases per boundary) of the three places hostile
// input enters: the IPC contract (every console call), the tool inputs agents send through the
// gateway's runtime, and the agent profile schema. No case may crash, reject unhandled or fail
// inside; every refusal must be a validation error that names the field it is about.
//
// fast-check rather than hand-written cases: it generates the shapes nobody thinks of (prototype
// keys, lone surrogates, -0, huge nesting, sparse arrays) and shrinks a failure to its smallest input.

const runs = 2000
let home: ReturnType<typeof makeTempDir>
let host: Host
const internalErrors: string[] = []
const ctx = { transport: 'websocket' as const }

beforeAll(async () => {
  home = makeTempDir('airlock-fuzz-', { outsideTmp: true })
  host = createHost({ home: home.path, logError: (message, error) => internalErrors.push(`${message}: ${String(error)}`) })
  await host.recovered
})
afterAll(async () => {
  await host.dispose()
  home.remove()
})

/** Keys of an object schema (so generated objects use real field names and reach deeper checks). */
function keysOf(schema: z.ZodType): string[] {
  const shape = (schema as { shape?: Record<string, unknown> }).shape ?? (schema as { def?: { shape?: Record<string, unknown> } }).def?.shape
  return shape && typeof shape === 'object' ? Object.keys(shape) : []
}

/** Values an agent plausibly sends (so many generated calls pass validation and reach the tool itself). */
const plausible = fc.constantFrom<unknown>(
  'notes.txt',
  'a/b.txt',
  '.',
  'echo hi',
  'print(1)',
  'python',
  'bash',
  'select 1',
  'hello',
  '',
  0,
  1,
  5,
  true,
  false,
  ['x'],
  [0.1, 0.2],
  {}
)

/**
 * Anything at all; or an object over the schema's own keys (and a stray or prototype key) with
 * anything as values; or one over its keys with plausible values, each key present or not.
 */
function inputFor(schema: z.ZodType): fc.Arbitrary<unknown> {
  const keys = keysOf(schema)
  const value = fc.oneof(
    fc.anything({ withNullPrototype: true, withObjectString: true, withSparseArray: true }),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null)
  )
  if (keys.length === 0) return fc.anything({ withNullPrototype: true, withObjectString: true })
  return fc.oneof(
    { weight: 1, arbitrary: fc.anything({ withNullPrototype: true, withObjectString: true }) },
    { weight: 3, arbitrary: fc.dictionary(fc.constantFrom(...keys, '__proto__', 'constructor', 'extra'), value, { maxKeys: keys.length + 1 }) },
    {
      weight: 3,
      arbitrary: fc.record(Object.fromEntries(keys.map((key) => [key, fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: value })])), {
        requiredKeys: []
      })
    }
  )
}

/** A validation refusal names its field: `input.<path>: …` (IPC). */
const namesAField = (message: string) => /^input(\.[^:;]+)?: /.test(message)
/** A tool's refusal names its field: `Invalid input for <tool>: <path or input>: …`. */
const toolNamesAField = (message: string) => /^Invalid input for \w+( in this session)?: [^:;\s]+: /.test(message)

describe('fuzz: the IPC contract', () => {
  // Calls that start long work on this machine whatever the input (the doctor, image provisioning,
  // provider probes) are left out; their inputs are empty objects, checked by the same dispatcher.
  const slow = new Set(['doctor:run', 'providers:list', 'providers:provisionImage', 'providers:images'])
  const channels = Object.entries(airlockContract).flatMap(([namespace, spec]) =>
    Object.entries(spec.calls)
      .filter(([name]) => !slow.has(`${namespace}:${name}`))
      .map(([name, call]) => ({ channel: `airlock:${namespace}:${name}`, schema: (call as { input: z.ZodType }).input }))
  )

  it(`answers ${runs} generated calls with a result, never a throw; refusals name the field`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...channels).chain((entry) => fc.tuple(fc.constant(entry.channel), inputFor(entry.schema))),
        async ([channel, input]) => {
          const result = await host.dispatch(channel, input, ctx)
          expect(typeof result.ok).toBe('boolean')
          if (!result.ok) {
            expect(result.error.code, `${channel} ${result.error.message}`).not.toBe('internal')
            expect(typeof result.error.message).toBe('string')
            if (result.error.code === 'invalid_input') expect(namesAField(result.error.message), result.error.message).toBe(true)
          }
        }
      ),
      { numRuns: runs }
    )
    expect(internalErrors).toEqual([])
  }, 300_000)
})

describe('fuzz: tool inputs through the agent runtime', () => {
  // The gateway hands each tools/call to this runtime, which validates with the tool's schema.
  const tools = Object.entries(builtinActions)
    .filter(([name]) => name !== 'mcpToolResolver' && name !== 'browse')
    .map(([name, spec]) => ({ name, schema: (spec as { inputSchema: z.ZodType }).inputSchema }))

  it(`answers ${runs} generated tool calls with a result; refusals name the field`, async () => {
    host.agents.service.create('fuzzer', { profile: { capabilities: ['files', 'shell', 'python', 'sqlite', 'vector_store'], ask: 'never' } })
    const { sessionId } = host.agents.sessions.start('fuzzer', 'fuzz')
    const outcomes = new Map<string, number>()
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tools).chain((tool) => fc.tuple(fc.constant(tool.name), inputFor(tool.schema))),
        async ([tool, input]) => {
          const result = await host.agents.sessions.execute({ sessionId, tool, input })
          outcomes.set(result.status, (outcomes.get(result.status) ?? 0) + 1)
          expect(['success', 'error', 'blocked', 'timed_out']).toContain(result.status)
          if (result.status === 'error' && result.error?.code === 'invalid_input')
            expect(toolNamesAField(result.error.message), result.error.message).toBe(true)
          expect(result.error?.code ?? '').not.toBe('internal')
        }
      ),
      { numRuns: runs }
    )
    console.log(`fuzz tool calls: ${JSON.stringify(Object.fromEntries(outcomes))}`)
    // The generator reaches past validation too: some calls ran (and some were refused by the tool itself).
    expect(outcomes.get('success') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
    expect(internalErrors).toEqual([])
  }, 600_000)
})

describe('fuzz: the agent profile schema', () => {
  it(`parses ${runs} generated profiles without throwing; every issue has a field path`, () => {
    fc.assert(
      fc.property(inputFor(agentProfileSchema), (profile) => {
        const parsed = agentProfileSchema.safeParse(profile)
        if (parsed.success) return
        for (const issue of parsed.error.issues) {
          // A non-object profile is refused as a whole; anything inside names its field (by its
          // path, or, for a key the schema does not know, in the message: `Unrecognized key: "x"`).
          if (typeof profile === 'object' && profile !== null && !Array.isArray(profile) && issue.code !== 'invalid_type') {
            if (issue.code === 'unrecognized_keys')
              expect(
                issue.keys.every((key) => issue.message.includes(key)),
                issue.message
              ).toBe(true)
            else expect(issue.path.length, issue.message).toBeGreaterThan(0)
          }
          expect(issue.message.length).toBeGreaterThan(0)
        }
      }),
      { numRuns: runs }
    )
  })

  it(`refuses ${runs} generated profiles at agents.create by field, and stores none of the refused`, async () => {
    let created = 0
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1e9 }), inputFor(agentProfileSchema), async (n, profile) => {
        const result = await host.dispatch('airlock:agents:create', { agentId: `f${n}`, profile }, ctx)
        if (result.ok) {
          created++
          await host.dispatch('airlock:agents:remove', { agentId: `f${n}` }, ctx)
          return
        }
        expect(result.error.code).not.toBe('internal')
        if (result.error.code === 'invalid_input') expect(result.error.message).toMatch(/^input(\.profile[^:]*)?: /)
      }),
      { numRuns: runs }
    )
    expect(created).toBeLessThan(runs)
    expect(internalErrors).toEqual([])
  }, 300_000)
})
