import { describe, expect, it } from 'vitest'
import { agentConnectionSchema } from '@shared/ipc/agents'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { airlockCommandPath, connectionSnippets } from './connection-snippets'

describe('connectionSnippets', () => {
  const connection = connectionSnippets('coder', 'http://127.0.0.1:7411/mcp', 'airlock')

  it('fits the contract and never holds a token, only the <token> placeholder', () => {
    expect(agentConnectionSchema.parse(connection)).toEqual(connection)
    expect(JSON.stringify(connection)).not.toMatch(/alk_/)
    for (const snippet of Object.values(connection.snippets)) expect(snippet).toContain('<token>')
  })

  it('gives the exact snippets the clients take', () => {
    expect(connection.snippets.claudeCode).toBe(
      'claude mcp add --transport http airlock-coder http://127.0.0.1:7411/mcp --header "Authorization: Bearer <token>"'
    )
    expect(JSON.parse(connection.snippets.generic)).toEqual({
      mcpServers: { 'airlock-coder': { type: 'http', url: 'http://127.0.0.1:7411/mcp', headers: { Authorization: 'Bearer <token>' } } }
    })
    expect(JSON.parse(connection.snippets.cursor)).toEqual({
      mcpServers: { 'airlock-coder': { url: 'http://127.0.0.1:7411/mcp', headers: { Authorization: 'Bearer <token>' } } }
    })
    expect(JSON.parse(connection.snippets.stdio)).toEqual({
      mcpServers: { 'airlock-coder': { command: 'airlock', args: ['mcp-stdio', '--agent', 'coder'], env: { AIRLOCK_TOKEN: '<token>' } } }
    })
  })

  it('the stdio entry names this checkout’s bin/airlock.mjs by its absolute path (airlock is not on PATH without npm link)', () => {
    const command = airlockCommandPath()
    expect(command).toBe(resolve(__dirname, '../../../bin/airlock.mjs'))
    expect(existsSync(command)).toBe(true)
    expect(JSON.parse(connectionSnippets('coder', 'http://127.0.0.1:7411/mcp').snippets.stdio).mcpServers['airlock-coder'].command).toBe(command)
    expect(airlockCommandPath('/')).toBe('airlock')
  })
})
