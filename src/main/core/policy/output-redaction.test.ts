import { describe, expect, it } from 'vitest'
import { ActionHooks } from '../action-runtime/action-hooks'
import type { ActionAgent, ActionResult, AnyActionSpec } from '../action-runtime/action-spec'
import { installOutputRedaction, redactOutputText } from './output-redaction'

const github = `ghp_${'a1B2c3D4e5'.repeat(4)}`
const aws = 'AKIAIOSFODNN7EXAMPLE'
const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'

describe('output redaction', () => {
  it('replaces known secrets and credential shapes, counting them by kind', () => {
    const counts = new Map<string, number>()
    const text = `a ${github} b ${aws} c aws_secret_access_key = ${'x'.repeat(40)} d xoxb-1234567890-abcdef e sk-proj-${'Z'.repeat(24)} f the-operator-secret\n${key}\nend`
    const out = redactOutputText(text, ['the-operator-secret'], counts)
    for (const secret of [github, aws, 'x'.repeat(40), 'xoxb-1234567890', 'Z'.repeat(24), 'the-operator-secret', 'b3BlbnNzaC1rZXktdjEAAAAA'])
      expect(out).not.toContain(secret)
    expect(out).toContain('aws_secret_access_key = [redacted]')
    expect(out.endsWith('\nend')).toBe(true)
    expect(Object.fromEntries(counts)).toEqual({
      known_secret: 1,
      private_key: 1,
      aws_access_key: 1,
      aws_secret_key: 1,
      github_token: 1,
      slack_token: 1,
      api_key: 1
    })
  })

  it('finds tokens glued to an underscore', () => {
    const counts = new Map<string, number>()
    const out = redactOutputText(`x_${github} ${aws}_old`, [], counts)
    expect(out).toBe('x_[redacted] [redacted]_old')
  })

  it('leaves ordinary output alone', () => {
    const counts = new Map<string, number>()
    const text = 'sk-short ghp_short AKIA1234 git sha 3f2a9c1b0e7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 risk-flagged task-runner'
    expect(redactOutputText(text, ['abc'], counts)).toBe(text)
    expect(counts.size).toBe(0)
  })

  it('as a POST_TOOL_RESPONSE hook: redacts every string of data (keys too) and the error, and says so in meta', async () => {
    const hooks = new ActionHooks()
    installOutputRedaction(hooks)
    const result: ActionResult = {
      ok: false,
      status: 'error',
      data: { stdout: `x ${github}`, rows: [{ [aws]: 1, note: 'fine' }] },
      artifacts: [],
      meta: {},
      diagnostics: [],
      error: { code: 'e', message: `failed with ${github}` }
    }
    const agent = { agentId: 'a', sessionId: 's', workspace: '/w', tools: new Set<string>(), secrets: [] } as unknown as ActionAgent
    const out = await hooks.respond({ callId: 'c', tool: 't', input: {}, agent, spec: {} as AnyActionSpec, result })
    expect(JSON.stringify(out)).not.toContain(github)
    expect(JSON.stringify(out)).not.toContain(aws)
    expect(out.meta.redaction).toEqual({ replaced: 3, kinds: ['aws_access_key', 'github_token'] })
    expect(out.diagnostics.at(-1)).toMatch(/3 secrets redacted/)
    const clean = await hooks.respond({
      callId: 'c',
      tool: 't',
      input: {},
      agent,
      spec: {} as AnyActionSpec,
      result: { ...result, data: 'ok', error: undefined }
    })
    expect(clean.meta.redaction).toBeUndefined()
  })
})
