import { describe, expect, it } from 'vitest'
import { agentProfileDefaults, type EffectiveAgentProfile } from '@shared/agents'
import { toolEnabled } from '../core'
import { agentToolset } from './agent-toolset'
import { capabilitiesOf, enableCodingWorkspace, enableShell } from './enable-capabilities'

const workspace = '/srv/airlock/workspaces/coder'
const profile = (overrides: Partial<EffectiveAgentProfile> = {}): EffectiveAgentProfile => ({ ...agentProfileDefaults, ...overrides })

describe('capability helpers', () => {
  it('a default agent gets the files, shell and python/nodejs tools, and run_code for those two runtimes only', () => {
    const toolset = agentToolset(profile(), workspace)
    expect([...toolset.tools].sort()).toEqual([
      'edit_file',
      'list_directory',
      'persist_skill',
      'read_file',
      'run_code',
      'run_command',
      'run_skill',
      'search_files',
      'write_file'
    ])
    expect(toolset.profile.runtimes).toEqual(['python', 'nodejs'])
    expect(toolset.tools.has('browse')).toBe(false)
  })

  it('a profile runtimes list narrows code_runtime; no allowed runtime means no run_code', () => {
    expect(agentToolset(profile({ capabilities: ['code_runtime'], runtimes: ['go'] }), workspace).profile.runtimes).toEqual(['go'])
    const none = agentToolset(profile({ capabilities: ['python'], runtimes: ['nodejs'] }), workspace)
    expect(none.tools.has('run_code')).toBe(false)
    expect(none.tools.has('run_skill')).toBe(false)
  })

  it('the shell requirement follows the agent: its workspace, network, limits and sandbox order; trusted_local only when authorised', () => {
    const shell = enableShell({ profile: profile({ providers: ['trusted_local', 'bubblewrap'], network: 'proxy' }), workspace })
    expect(shell.requirements).toEqual([
      expect.objectContaining({
        kind: 'bash',
        scope: 'session',
        providerCandidates: ['bubblewrap'],
        requiredCapabilities: expect.objectContaining({ isolation: expect.any(Object) })
      })
    ])
    // network proxy is carried as such: the provider bridges the sandbox to the egress proxy.
    expect(shell.policy).toMatchObject({ workspaceRoots: [workspace], networkMode: 'proxy', timeoutSeconds: 120, maxOutputBytes: 1024 * 1024 })
    const authorised = enableShell({ profile: profile({ providers: ['trusted_local'], allowUnsafeLocal: true, isolation: 'none' }), workspace })
    expect(authorised.requirements[0]!.providerCandidates).toEqual([{ providerId: 'trusted_local', config: { allowUnsafeLocal: true } }])
  })

  it('code runs are declared on the workspace executions folder, one requirement per runtime', () => {
    const coding = enableCodingWorkspace({ profile: profile({ runtimes: ['python'] }), workspace })
    const code = coding.requirements.filter((r) => r.kind === 'code_execution')
    expect(code).toHaveLength(1)
    expect(code[0]).toMatchObject({ requiredCapabilities: { languages: ['python'] }, policy: { workspaceRoots: [`${workspace}/.airlock/executions`] } })
  })

  it('mcp attaches every server of the profile as <server>__*', () => {
    const servers = [
      { name: 'github', url: 'https://mcp.example/' },
      { name: 'files', command: ['node', 'server.js'], unsafe: true }
    ]
    const toolset = agentToolset(profile({ capabilities: ['mcp'], mcpServers: servers }), workspace)
    expect(toolEnabled(toolset.tools, 'github__create_issue')).toBe(true)
    expect(toolEnabled(toolset.tools, 'files__read')).toBe(true)
    expect(toolEnabled(toolset.tools, 'other__read')).toBe(false)
    expect(toolEnabled(toolset.tools, 'write_file')).toBe(false)
    expect(capabilitiesOf({ profile: profile({ capabilities: [] }), workspace }).tools).toEqual([])
  })
})
