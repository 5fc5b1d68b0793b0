import { beforeAll, describe, expect, it } from 'vitest'
import type { RuleMatcher } from '@shared/approvals'
import { loadCommandAnalyzer, type CommandAnalyzer } from '../../core'
import { describeMatcher, matcherCovers, notRememberable, proposeMatcher, type RequestFacts } from './rule-matchers'

// Rule matchers on the facts of a request, with the real command parser: what a remembered rule
// covers, and every near miss it must not.

let analyzer: CommandAnalyzer
beforeAll(async () => {
  analyzer = await loadCommandAnalyzer()
})

/** The facts of a run_command as the dispatcher hands them over: commands as the policy parsed them. */
function command(line: string, extra: Partial<RequestFacts> = {}): RequestFacts {
  const analysis = analyzer.analyze(line)
  const commands = analysis.ok ? analysis.commands.map((c) => c.argv.map((w) => w.value)) : []
  return {
    tool: 'run_command',
    kind: 'action',
    agentId: 'a',
    input: { command: line },
    commands,
    analysed: analysis.ok && analysis.concerns.length === 0,
    policyRule: 'ask.always',
    riskFlags: [],
    ...extra
  }
}

const facts = (tool: string, input: unknown, extra: Partial<RequestFacts> = {}): RequestFacts => ({
  tool,
  kind: 'action',
  agentId: 'a',
  input,
  commands: [],
  analysed: true,
  policyRule: 'ask.always',
  riskFlags: [],
  ...extra
})

describe('command matchers', () => {
  const echoHi: RuleMatcher = { kind: 'command', commands: [{ prefix: ['echo', 'hi'] }] }

  it('propose exactly the parsed commands, and cover the same argv however it is quoted', () => {
    expect(proposeMatcher(command('npm test'), analyzer)).toEqual({ kind: 'command', commands: [{ prefix: ['npm', 'test'] }] })
    expect(proposeMatcher(command('echo hi && echo hi | cat'), analyzer)).toEqual({
      kind: 'command',
      commands: [{ prefix: ['echo', 'hi'] }, { prefix: ['echo', 'hi'] }, { prefix: ['cat'] }]
    })
    for (const line of ['echo hi', 'echo "hi"', "echo 'h'i", 'echo   hi', 'echo hi 2>&1'])
      expect(matcherCovers(echoHi, command(line), analyzer), line).toBe(true)
  })

  it.each([
    'echo hi; rm -rf x',
    'echo hi && rm x',
    'echo hi\nrm x',
    'echo hi > .git/config',
    'echo hi >> notes.txt',
    'echo hi < /etc/passwd',
    "sh -c 'echo hi'",
    "bash -c 'echo hi; rm x'",
    'sudo echo hi',
    'env X=1 echo hi',
    'LD_PRELOAD=/tmp/x.so echo hi',
    'echo hi $(rm x)',
    'echo hi `rm x`',
    'echo $HOME',
    'echo hi | sh',
    'f() { echo hi; }; f',
    'eval echo hi',
    'echo hi there',
    'echo',
    'xargs echo hi < list',
    'timeout 5 echo hi',
    'echo hi &',
    '$X hi'
  ])('a rule for `echo hi` does not cover %j', (line) => {
    expect(matcherCovers(echoHi, command(line), analyzer)).toBe(false)
  })

  it('args is a glob over the rest of the words: literal but for * and ?', () => {
    const test: RuleMatcher = { kind: 'command', commands: [{ prefix: ['npm', 'run'], args: 'test:?' }] }
    const status: RuleMatcher = { kind: 'command', commands: [{ prefix: ['git', 'status'], args: '*' }] }
    const both: RuleMatcher = { kind: 'command', commands: [...test.commands, ...status.commands] }
    expect(matcherCovers(test, command('npm run test:a'), analyzer)).toBe(true)
    expect(matcherCovers(test, command('npm run test:ab'), analyzer)).toBe(false)
    expect(matcherCovers(status, command('git status'), analyzer)).toBe(true)
    expect(matcherCovers(both, command('npm run test:x && git status -s'), analyzer)).toBe(true)
    expect(matcherCovers(both, command('git status -s && npm run test:x'), analyzer)).toBe(false)
    expect(matcherCovers(status, command('git status; git push'), analyzer)).toBe(false)
    const dots: RuleMatcher = { kind: 'command', commands: [{ prefix: ['cat'], args: 'a.c' }] }
    expect(matcherCovers(dots, command('cat abc'), analyzer)).toBe(false)
    expect(matcherCovers(dots, command('cat a.c'), analyzer)).toBe(true)
  })

  it('matches the ordered commands: the same number, each against the entry at its index', () => {
    const approved = proposeMatcher(command('ls; export PATH=.'), analyzer)!
    expect(approved).toEqual({ kind: 'command', commands: [{ prefix: ['ls'] }, { prefix: ['export', 'PATH=.'] }] })
    expect(matcherCovers(approved, command('ls; export PATH=.'), analyzer)).toBe(true)
    for (const line of ['export PATH=.; ls', 'ls', 'ls; export PATH=.; ls', 'ls; ls; export PATH=.'])
      expect(matcherCovers(approved, command(line), analyzer), line).toBe(false)
    const twice = proposeMatcher(command('echo hi; echo hi'), analyzer)!
    expect(matcherCovers(twice, command('echo hi'), analyzer)).toBe(false)
    expect(matcherCovers(echoHi, command('echo hi; echo hi'), analyzer)).toBe(false)
  })

  it('never covers a line the policy did not see whole, commands that differ from what the policy reported, or redacted words', () => {
    expect(matcherCovers(echoHi, command('echo hi', { analysed: false }), analyzer)).toBe(false)
    expect(matcherCovers(echoHi, command('echo hi', { commands: [['echo', 'bye']] }), analyzer)).toBe(false)
    expect(matcherCovers(echoHi, { ...command('echo hi'), input: { command: 'echo [redacted]' }, commands: [['echo', '[redacted]']] }, analyzer)).toBe(false)
    expect(proposeMatcher(command('echo "$SECRET"'), analyzer)).toBeNull()
    expect(proposeMatcher(command('echo ""'), analyzer)).toBeNull()
    expect(matcherCovers(echoHi, command('echo hi'), undefined)).toBe(false)
  })
})

describe('path, domain and tool matchers', () => {
  it('path: the subtree and the named tools only, on the normalised path', () => {
    const src: RuleMatcher = { kind: 'path', subtree: 'src', tools: ['write_file'] }
    expect(matcherCovers(src, facts('write_file', { path: 'src/a.ts', content: '' }), analyzer)).toBe(true)
    expect(matcherCovers(src, facts('write_file', { path: './src//deep/a.ts', content: '' }), analyzer)).toBe(true)
    for (const path of ['srcx/a.ts', 'src', 'src/../.git/config', '/src/a.ts', '../src/a.ts', 'other/src/a.ts']) {
      expect(matcherCovers(src, facts('write_file', { path, content: '' }), analyzer), path).toBe(path === 'src')
    }
    expect(matcherCovers(src, facts('edit_file', { path: 'src/a.ts', oldText: 'a', newText: 'b' }), analyzer)).toBe(false)
    expect(matcherCovers({ kind: 'path', subtree: '.', tools: ['edit_file'] }, facts('edit_file', { path: 'x/y', oldText: 'a', newText: 'b' }), analyzer)).toBe(
      true
    )
    expect(proposeMatcher(facts('edit_file', { path: 'src/a.ts', oldText: 'a', newText: 'b' }), analyzer)).toEqual({
      kind: 'path',
      subtree: 'src/a.ts',
      tools: ['edit_file']
    })
  })

  it('domain: exact host or a strict *.suffix, and the port when the rule names one', () => {
    const exact: RuleMatcher = { kind: 'domain', host: 'example.com' }
    const wild: RuleMatcher = { kind: 'domain', host: '*.example.com', port: 443 }
    const browse = (url: string) => facts('browse', { url })
    expect(matcherCovers(exact, browse('https://example.com/x'), analyzer)).toBe(true)
    expect(matcherCovers(exact, browse('http://EXAMPLE.com:8080/'), analyzer)).toBe(true)
    for (const url of ['https://example.com.evil.net/', 'https://evilexample.com/', 'https://example.com@evil.net/', 'https://a.example.com/'])
      expect(matcherCovers(exact, browse(url), analyzer), url).toBe(false)
    expect(matcherCovers(wild, browse('https://a.b.example.com/'), analyzer)).toBe(true)
    for (const url of ['https://example.com/', 'https://xexample.com/', 'http://a.example.com/', 'https://a.example.com:8443/'])
      expect(matcherCovers(wild, browse(url), analyzer), url).toBe(false)
    expect(matcherCovers(exact, facts('egress', { host: 'example.com', port: 22 }, { kind: 'network' }), analyzer)).toBe(true)
    expect(proposeMatcher(browse('https://Example.com:8443/p'), analyzer)).toEqual({ kind: 'domain', host: 'example.com', port: 8443 })
  })

  it('tool: by name with exact top-level arguments; never run_command, never code without arguments, never redacted values', () => {
    const query = facts('sqlite_query', { database: 'a.db', sql: 'delete from t' })
    const proposed = proposeMatcher(query, analyzer)
    expect(proposed).toEqual({ kind: 'tool', tool: 'sqlite_query', args: { database: 'a.db', sql: 'delete from t' } })
    expect(matcherCovers(proposed!, query, analyzer)).toBe(true)
    expect(matcherCovers(proposed!, facts('sqlite_query', { database: 'a.db', sql: 'delete from t2' }), analyzer)).toBe(false)
    expect(matcherCovers(proposed!, facts('sqlite_query', { database: 'a.db' }), analyzer)).toBe(false)
    // A field the approved call did not have is not free: exactly the approved fields.
    expect(matcherCovers(proposed!, facts('sqlite_query', { database: 'a.db', sql: 'delete from t', params: ['x'] }), analyzer)).toBe(false)
    const code = facts('run_code', { language: 'python', sourceCode: 'import sys' })
    const pinned = proposeMatcher(code, analyzer)!
    expect(matcherCovers(pinned, code, analyzer)).toBe(true)
    expect(matcherCovers(pinned, facts('run_code', { language: 'python', sourceCode: 'import sys', args: ['sh'] }), analyzer)).toBe(false)
    // A call without input fields is pinned as such (`args: {}`), never as "any input".
    expect(proposeMatcher(facts('srv__t', {}), analyzer)).toEqual({ kind: 'tool', tool: 'srv__t', args: {} })
    expect(matcherCovers({ kind: 'tool', tool: 'srv__t', args: {} }, facts('srv__t', { x: 1 }), analyzer)).toBe(false)
    expect(matcherCovers({ kind: 'tool', tool: 'srv__t' }, facts('srv__t', { x: 1 }), analyzer)).toBe(true)
    expect(matcherCovers({ kind: 'tool', tool: 'run_command' }, command('echo hi'), analyzer)).toBe(false)
    expect(matcherCovers({ kind: 'tool', tool: 'run_code' }, facts('run_code', { language: 'python', code: 'print(1)' }), analyzer)).toBe(false)
    expect(matcherCovers({ kind: 'tool', tool: 'srv__t', args: { token: '[redacted]' } }, facts('srv__t', { token: '[redacted]' }), analyzer)).toBe(false)
    expect(proposeMatcher(facts('srv__t', { token: '[redacted]' }), analyzer)).toBeNull()
    expect(proposeMatcher(facts('srv__t', { blob: 'x'.repeat(20_000) }), analyzer)).toBeNull()
  })

  it('requests a rule never answers: write-downs, reads above the ceiling, unanalysed lines, resources, skills, no agent', () => {
    expect(notRememberable(command('echo hi', { policyRule: 'classification.write_down' }))).toMatch(/write-down/)
    expect(notRememberable(command('echo hi', { policyRule: 'classification.above_ceiling' }))).toMatch(/ceiling/)
    expect(notRememberable(command('echo hi', { policyRule: 'command.dynamic' }))).toMatch(/could not fully analyse/)
    expect(notRememberable(facts('x', {}, { kind: 'resource' }))).toMatch(/resource request/)
    expect(notRememberable(facts('x', {}, { kind: 'skill' }))).toMatch(/skill request/)
    expect(notRememberable(facts('x', {}, { agentId: null }))).toMatch(/without an agent/)
    expect(proposeMatcher(command('echo hi', { policyRule: 'classification.write_down' }), analyzer)).toBeNull()
  })

  it('describes a matcher in one line', () => {
    expect(describeMatcher({ kind: 'command', commands: [{ prefix: ['npm', 'test'] }, { prefix: ['git'], args: 'status *' }] })).toBe(
      'run_command: npm test ; git status *'
    )
    expect(describeMatcher({ kind: 'path', subtree: '.', tools: ['write_file'] })).toBe('write_file anywhere in the workspace')
    expect(describeMatcher({ kind: 'domain', host: '*.example.com', port: 443 })).toBe('network to *.example.com:443')
    expect(describeMatcher({ kind: 'tool', tool: 'srv__t' })).toBe('srv__t (any input)')
    expect(describeMatcher({ kind: 'tool', tool: 'srv__t', args: {} })).toBe('srv__t with no input')
    expect(describeMatcher({ kind: 'tool', tool: 'srv__t', args: { a: 1 } })).toBe('srv__t with exactly a=1')
  })
})
