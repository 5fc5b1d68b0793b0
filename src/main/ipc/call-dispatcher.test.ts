import { airlockContract, type AirlockContract } from '@shared/ipc'
import { describe, expect, it } from 'vitest'
import { createCallDispatcher, maxInputBytes, type ContractHandlers } from './call-dispatcher'
import { StoreError } from '../store/store-error'
import { IpcError } from './ipc-error'

/** Handlers that only record that they were reached: the dispatcher is what is under test. */
function recordingDispatcher() {
  const reached: string[] = []
  const view = { key: 'console.port' as const, value: 7410, defaultValue: 7410, isDefault: true, description: 'd' }
  const handlers: ContractHandlers<AirlockContract> = {
    system: {
      info: (_input, context) => {
        reached.push('system.info')
        return { appVersion: '1', home: '/h', databasePath: '/h/db', transport: context.transport, platform: 'p', nodeVersion: 'n' }
      },
      rotateConsoleToken: () => (reached.push('system.rotateConsoleToken'), { url: 'http://127.0.0.1:1/?token=t' })
    },
    settings: {
      list: () => (reached.push('settings.list'), [view]),
      get: () => (reached.push('settings.get'), view),
      set: ({ key, value }) => (reached.push(`settings.set:${key}=${JSON.stringify(value)}`), view),
      reset: () => (reached.push('settings.reset'), view)
    },
    resources: {
      list: () => (reached.push('resources.list'), []),
      release: () => (reached.push('resources.release'), { released: false }),
      checkHealth: () => (reached.push('resources.checkHealth'), { status: 'ready' as const }),
      recentEvents: () => (reached.push('resources.recentEvents'), [])
    },
    providers: {
      list: () => (reached.push('providers.list'), { providers: [], codeExecutionOrder: [] }),
      images: () => (reached.push('providers.images'), { engine: { ok: false, reason: 'r' }, images: [], languages: [] }),
      provisionImage: ({ language }) => (reached.push(`providers.provisionImage:${language}`), { started: true as const })
    },
    // Not reached by these tests: the agents, history and skills handlers have their own contract tests.
    agents: unreachable([
      'list',
      'get',
      'create',
      'update',
      'setEnabled',
      'remove',
      'rotateToken',
      'sessions',
      'listRoles',
      'saveRole',
      'removeRole',
      'connection'
    ]) as unknown as ContractHandlers<AirlockContract>['agents'],
    history: unreachable(['list', 'detail', 'verify', 'count', 'usage', 'live', 'cancel']) as unknown as ContractHandlers<AirlockContract>['history'],
    skills: unreachable(['list', 'approve', 'reject']) as unknown as ContractHandlers<AirlockContract>['skills'],
    approvals: unreachable(['list', 'get', 'decide', 'reveal']) as unknown as ContractHandlers<AirlockContract>['approvals'],
    rules: unreachable(['list', 'update', 'revoke']) as unknown as ContractHandlers<AirlockContract>['rules'],
    sessions: unreachable(['list', 'end']) as unknown as ContractHandlers<AirlockContract>['sessions'],
    workspace: unreachable(['list', 'read', 'recent']) as unknown as ContractHandlers<AirlockContract>['workspace'],
    checkpoints: unreachable(['list', 'detail', 'revert', 'restore']) as unknown as ContractHandlers<AirlockContract>['checkpoints'],
    timeline: unreachable(['list']) as unknown as ContractHandlers<AirlockContract>['timeline'],
    doctor: unreachable(['run', 'latest']) as unknown as ContractHandlers<AirlockContract>['doctor'],
    network: unreachable([
      'listRules',
      'addRule',
      'removeRule',
      'listHosts',
      'addHost',
      'removeHost'
    ]) as unknown as ContractHandlers<AirlockContract>['network']
  }
  return { reached, dispatch: createCallDispatcher(airlockContract, handlers) }
}

/** Handlers that fail the test if a call reaches them. */
function unreachable(names: string[]): Record<string, () => never> {
  return Object.fromEntries(names.map((name) => [name, () => expect.unreachable(`${name} was reached`)]))
}

const ctx = { transport: 'websocket' as const }

describe('contract dispatcher validation', () => {
  it('passes a valid call to its handler and returns {ok, value}', async () => {
    const { reached, dispatch } = recordingDispatcher()
    const result = await dispatch('airlock:settings:set', { key: 'access_control_policy.auto_allow', value: true }, ctx)
    expect(result.ok).toBe(true)
    expect(reached).toEqual(['settings.set:access_control_policy.auto_allow=true'])
  })

  const badPayloads: [string, string, unknown][] = [
    ['wrong type for a key', 'airlock:settings:get', { key: 42 }],
    ['an unknown setting key', 'airlock:settings:get', { key: 'no.such.setting' }],
    ['a value of the wrong type for its key', 'airlock:settings:set', { key: 'console.port', value: 'eighty' }],
    ['an out-of-range port', 'airlock:settings:set', { key: 'console.port', value: 70000 }],
    ['an extra key', 'airlock:settings:get', { key: 'console.port', extra: 1 }],
    ['an extra key on an empty input', 'airlock:system:info', { sneaky: true }],
    ['__proto__ smuggled through JSON', 'airlock:settings:get', JSON.parse('{"key":"console.port","__proto__":{"admin":true}}')],
    ['constructor.prototype smuggling', 'airlock:system:info', JSON.parse('{"constructor":{"prototype":{"x":1}}}')],
    ['a huge string', 'airlock:settings:get', { key: 'x'.repeat(maxInputBytes + 10) }],
    ['a huge string inside a valid shape', 'airlock:settings:set', { key: 'code_execution.providers', value: ['a'.repeat(5000)] }],
    ['not an object at all', 'airlock:settings:get', 'console.port'],
    ['null', 'airlock:settings:get', null],
    ['an array', 'airlock:settings:get', ['console.port']],
    ['a BigInt (not JSON)', 'airlock:settings:set', { key: 'console.port', value: 10n }],
    ['a handle id that is not a string', 'airlock:resources:release', { handleId: { $ne: null } }],
    ['an event limit out of range', 'airlock:resources:recentEvents', { limit: 1e9 }],
    ['a nested extra key in provider config', 'airlock:settings:set', { key: 'code_execution.providers', value: [{ providerId: 'docker', extra: 1 }] }],
    // The workspace browser: the workspace is hostile, and so is what a console sends about it.
    ['an agent id that climbs out', 'airlock:workspace:list', { agentId: '../other' }],
    ['an agent id that is not a string', 'airlock:workspace:list', { agentId: ['coder'] }],
    ['a workspace path with ..', 'airlock:workspace:list', { agentId: 'coder', path: 'src/../../other' }],
    ['a workspace path that is only ..', 'airlock:workspace:read', { agentId: 'coder', path: '..' }],
    ['an absolute workspace path', 'airlock:workspace:read', { agentId: 'coder', path: '/etc/passwd' }],
    ['a timeline page before a date that is not one', 'airlock:timeline:list', { agentId: 'coder', before: 'yesterday' }],
    ['a checkpoint id that is a path', 'airlock:checkpoints:revert', { id: '../../etc' }],
    ['a checkpoint id that is not a string', 'airlock:checkpoints:detail', { id: { $ne: 1 } }],
    ['a workspace path with NUL', 'airlock:workspace:read', { agentId: 'coder', path: 'a.txt\u0000.png' }],
    ['a workspace path over 4096 characters', 'airlock:workspace:list', { agentId: 'coder', path: 'a/'.repeat(2100) }],
    ['a read of the workspace itself', 'airlock:workspace:read', { agentId: 'coder', path: '' }],
    ['a workspace path that is not a string', 'airlock:workspace:read', { agentId: 'coder', path: { toString: 'x' } }],
    ['an extra key on a workspace call', 'airlock:workspace:recent', { agentId: 'coder', follow: true }],
    ['a recent limit of 0', 'airlock:workspace:recent', { agentId: 'coder', limit: 0 }],
    ['a recent limit over 200', 'airlock:workspace:recent', { agentId: 'coder', limit: 201 }],
    ['a fractional recent limit', 'airlock:workspace:recent', { agentId: 'coder', limit: 1.5 }],
    // history.count and history.usage take filters, never paging.
    ['a cursor on a count', 'airlock:history:count', { cursor: 5 }],
    ['a limit on a count', 'airlock:history:count', { limit: 10 }],
    ['an unknown status on a count', 'airlock:history:count', { status: 'exploded' }],
    ['a since that is not a date on a count', 'airlock:history:count', { since: 'yesterday' }],
    ['a since that is not a date on usage', 'airlock:history:usage', { since: '2025-13-40T00:00:00Z' }],
    ['an empty agent id on usage', 'airlock:history:usage', { agentId: '' }],
    ['an extra key on usage', 'airlock:history:usage', { bucket: 'minute' }],
    // Image provisioning starts real work: its input is checked before anything starts.
    ['an empty language', 'airlock:providers:provisionImage', { language: '' }],
    ['a language over 40 characters', 'airlock:providers:provisionImage', { language: 'p'.repeat(41) }],
    ['offline that is not a boolean', 'airlock:providers:provisionImage', { language: 'python', offline: 'yes' }],
    ['an extra key on provisionImage', 'airlock:providers:provisionImage', { language: 'python', rootfs: '/etc' }],
    ['an extra key on images', 'airlock:providers:images', { all: true }]
  ]

  for (const [name, channel, input] of badPayloads) {
    it(`rejects ${name} with validation_failed before any handler runs`, async () => {
      const { reached, dispatch } = recordingDispatcher()
      const result = await dispatch(channel, input, ctx)
      expect(result).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
      expect(reached).toEqual([])
      expect(({} as Record<string, unknown>).admin).toBeUndefined()
    })
  }

  it('names the offending field in the message', async () => {
    const { dispatch } = recordingDispatcher()
    const result = await dispatch('airlock:settings:set', { key: 'console.port', value: 'eighty' }, ctx)
    expect(!result.ok && result.error.message).toMatch(/^input\.value: /)
  })

  const unknownChannels = [
    'settings:get',
    'airlock:settings:nope',
    'airlock:nope:get',
    'ipc:airlock:settings:get',
    '',
    'airlock:settings:get:extra',
    // Names that exist on Object.prototype: they once reached it and threw.
    'airlock:constructor:get',
    'airlock:toString:get',
    'airlock:settings:toString',
    'airlock:settings:constructor',
    'airlock:settings:hasOwnProperty'
  ]
  for (const channel of unknownChannels) {
    it(`refuses the channel ${JSON.stringify(channel)} as unknown_call`, async () => {
      const { reached, dispatch } = recordingDispatcher()
      const result = await dispatch(channel, { key: 'console.port' }, ctx)
      expect(result).toMatchObject({ ok: false, error: { code: 'unknown_call' } })
      expect(reached).toEqual([])
    })
  }

  it('turns a thrown typed error into {ok:false} with its code and message, never a throw', async () => {
    const handlers = {
      system: {
        info: () => {
          throw new StoreError('store.unavailable', 'disk gone')
        }
      },
      resources: {
        checkHealth: () => {
          throw new IpcError('ipc.not_found', 'No live handle h-1.', { handleId: 'h-1' })
        }
      }
    } as unknown as ContractHandlers<AirlockContract>
    const internal: string[] = []
    const dispatch = createCallDispatcher(airlockContract, handlers, { onInternalError: (_e, channel) => internal.push(channel) })
    await expect(dispatch('airlock:system:info', {}, ctx)).resolves.toEqual({
      ok: false,
      error: { code: 'store.unavailable', message: 'disk gone' }
    })
    // The payload is for machines in main; only code and message cross the boundary.
    await expect(dispatch('airlock:resources:checkHealth', { handleId: 'h-1' }, ctx)).resolves.toEqual({
      ok: false,
      error: { code: 'ipc.not_found', message: 'No live handle h-1.' }
    })
    expect(internal).toEqual([])
  })

  it('reports an untyped handler error as internal_error (and to the operator log), never a throw', async () => {
    const handlers = {
      settings: {
        list: () => {
          throw new TypeError('boom')
        }
      }
    } as unknown as ContractHandlers<AirlockContract>
    const internal: string[] = []
    const dispatch = createCallDispatcher(airlockContract, handlers, { onInternalError: (_e, channel) => internal.push(channel) })
    await expect(dispatch('airlock:settings:list', {}, ctx)).resolves.toEqual({ ok: false, error: { code: 'internal_error', message: 'boom' } })
    expect(internal).toEqual(['airlock:settings:list'])
  })
})
