import { describe, expect, it } from 'vitest'
import { agentConnectionSchema } from '@shared/ipc/agents'
import { connectionSnippets } from './connection-snippets'

describe('connectionSnippets', () => {
  const connection = connectionSnippets('coder', 'http://127.0.0.1:7411/mcp')

  it('fits the contract and never holds a token, only the <token> placeholder', () => {
    expect(agentConnectionSchema.parse(connection)).toEqual(connection)
    expect(JSON.stringify(connection)).not.toMatch(/alk_/)
    for (const snippet of Object.values(connection.snippets)) expect(snippet).toContain('<token>')
  })

  it('gives the exact snippets the clients take', () => {
    expect(connection.snippets.claudeCode).toBe('claude mcp add --transport http airlock-coder http://127.0.0.1:7411/mcp --header "Authorization: Bearer <token>"')
    expect(JSON.parse(connection.snippets.generic)).toEqual({
      mcpServers: { 'airlock-coder': { type: 'http', url: 'http://127.0.0.1:7411/mcp', headers: { Authorization: 'Bearer <token>' } } }
    })
    expect(JSON.parse(connection.snippets.cursor)).toEqual({ mcpServers: { 'airlock-coder': { url: 'http://127.0.0.1:7411/mcp', headers: { Authorization: 'Bearer <token>' } } } })
    expect(JSON.parse(connection.snippets.stdio)).toEqual({
      mcpServers: { 'airlock-coder': { command: 'airlock', args: ['mcp-stdio', '--agent', 'coder'], env: { AIRLOCK_TOKEN: '<token>' } } }
    })
  })
})
