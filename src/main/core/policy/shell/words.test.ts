import { describe, expect, it } from 'vitest'
import { analyzeOk, argvs } from './test-support'
import { decodeAnsiC } from './words'

describe('words: quotes, escapes and expansions', () => {
  it.each([
    ["r''m -rf /", ['rm', '-rf', '/'], true],
    ['\\rm -rf /', ['rm', '-rf', '/'], true],
    ['"rm" \'-rf\' /', ['rm', '-rf', '/'], true],
    ["$'\\x72m' -rf /", ['rm', '-rf', '/'], true],
    ["$'\\162\\155' x", ['rm', 'x'], true],
    ['echo "a\\"b\\$c" \'x y\'', ['echo', 'a"b$c', 'x y'], true],
    ['echo a\\ b', ['echo', 'a b'], true],
    ['echo "" x', ['echo', '', 'x'], true]
  ])('%s', async (line, argv, nameStatic) => {
    const { commands, concerns } = await analyzeOk(line)
    expect(argvs(commands)).toEqual([argv])
    expect(commands[0]?.argv[0]?.static).toBe(nameStatic)
    expect(concerns).toEqual([])
  })

  it('decodes ANSI-C escapes', () => {
    expect(decodeAnsiC('\\x72\\155\\n\\t\\u00e9\\cA\\\\\\q')).toBe('rm\n\té\x01\\\\q')
  })

  it.each([
    ['a=r; b=m; $a$b -rf /', ['rm', '-rf', '/']],
    ['a=r b=m; ${a}${b} -rf /', ['rm', '-rf', '/']],
    ['export c=rm; $c x', ['rm', 'x']],
    ['x=r; x+=m; $x y', ['rm', 'y']],
    ['rm${IFS}-rf${IFS}/', ['rm', '-rf', '/']],
    ['cmd="rm -rf /"; $cmd', ['rm', '-rf', '/']],
    ['IFS=,; c=rm,-rf,/; $c', ['rm', '-rf', '/']]
  ])('propagates variables: %s', async (line, argv) => {
    const { commands, concerns } = await analyzeOk(line)
    const last = commands[commands.length - 1]
    expect(last?.argv.map((w) => w.value)).toEqual(argv)
    expect(last?.argv[0]?.static).toBe(false)
    expect(concerns.map((c) => c.rule)).toContain('command.dynamic')
  })

  it('drops an unquoted empty variable, keeps a quoted one', async () => {
    expect(argvs((await analyzeOk('a=; $a rm -rf /')).commands)).toEqual([['rm', '-rf', '/']])
    expect(argvs((await analyzeOk('a=; echo "$a" x')).commands)).toEqual([['echo', '', 'x']])
  })

  it('keeps unknown expansions as source text, not static', async () => {
    const { commands } = await analyzeOk('cat $HOME/.ssh/id_rsa ${HOME}/x "$(date)" ~/.aws/credentials *.ts')
    expect(commands[0]?.argv.map((w) => [w.value, w.static])).toEqual([
      ['cat', true],
      ['$HOME/.ssh/id_rsa', false],
      ['${HOME}/x', false],
      ['$(date)', false],
      ['~/.aws/credentials', false],
      ['*.ts', false]
    ])
  })

  it('a command name only known at run time is a concern but keeps its best reading', async () => {
    const { commands, concerns } = await analyzeOk('$TOOL --version')
    expect(argvs(commands)).toEqual([['$TOOL', '--version']])
    expect(concerns).toEqual([expect.objectContaining({ rule: 'command.dynamic' })])
  })

  it('records assignments and redirections', async () => {
    const { commands } = await analyzeOk('FOO=1 BAR="a b" make 2>>err.log > out >&2 < in')
    expect(commands[0]?.assignments).toEqual([
      { name: 'FOO', value: { value: '1', static: true } },
      { name: 'BAR', value: { value: 'a b', static: true } }
    ])
    expect(commands[0]?.redirects).toEqual([
      { op: '>>', fd: 2, target: { value: 'err.log', static: true }, writes: true },
      { op: '>', target: { value: 'out', static: true }, writes: true },
      { op: '>&', target: { value: '2', static: true }, writes: false },
      { op: '<', target: { value: 'in', static: true }, writes: false }
    ])
  })
})
