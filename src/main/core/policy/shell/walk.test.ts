import { describe, expect, it } from 'vitest'
import { feedersOf } from './index'
import { analyzeOk, argvs } from './test-support'

describe('walk: every simple command that would run', () => {
  it.each([
    ['a; b && c || d', [['a'], ['b'], ['c'], ['d']]],
    ['(cd / && rm -rf x); { ls; }', [['cd', '/'], ['rm', '-rf', 'x'], ['ls']]],
    ['if a; then b; elif c; then d; else e; fi', [['a'], ['b'], ['c'], ['d'], ['e']]],
    ['for x in $(ls); do rm "$x"; done', [['ls'], ['rm', '$x']]],
    [
      'while read l; do echo "$l"; done < f',
      [
        ['read', 'l'],
        ['echo', '$l']
      ]
    ],
    ['case $v in a) k;; *) j;; esac', [['k'], ['j']]],
    ['echo $(id) `whoami` "$(date)"', [['echo', '$(id)', '`whoami`', '$(date)'], ['id'], ['whoami'], ['date']]],
    [
      'diff <(ls a) <(ls b)',
      [
        ['diff', '<(ls a)', '<(ls b)'],
        ['ls', 'a'],
        ['ls', 'b']
      ]
    ],
    ['[[ -f $(p) ]] && ! q', [['p'], ['q']]],
    ['export A=$(x) B', [['export', 'A=$(x)', 'B'], ['x']]]
  ])('%s', async (line, expected) => {
    expect(argvs((await analyzeOk(line)).commands)).toEqual(expected)
  })

  it('marks pipeline stages and background jobs concurrent, the rest not', async () => {
    const { commands } = await analyzeOk('a | b; c & d')
    expect(commands.map((c) => [c.argv[0]?.value, c.concurrent])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
      ['d', false]
    ])
  })

  it('sets inFunction inside function bodies', async () => {
    const { commands } = await analyzeOk('f() { rm -rf /; }; function g { ls; }; f')
    expect(commands.map((c) => [c.argv[0]?.value, c.inFunction])).toEqual([
      ['rm', 'f'],
      ['ls', 'g'],
      ['f', undefined]
    ])
  })

  it.each([
    [
      'a | b | c',
      2,
      [
        { from: 0, how: 'stdin' },
        { from: 1, how: 'stdin' }
      ]
    ],
    ['echo $(curl x)', 0, [{ from: 1, how: 'argument' }]],
    ['wc -l < <(curl x)', 0, [{ from: 1, how: 'stdin' }]],
    ['curl -s x | sh', 1, [{ from: 0, how: 'script' }]],
    ['curl -s x | bash -s -- arg', 1, [{ from: 0, how: 'script' }]],
    ['wget -O- x | python3', 1, [{ from: 0, how: 'script' }]],
    ['bash <(curl x)', 0, [{ from: 1, how: 'script' }]],
    ['sh -c "$(curl x)"', 0, [{ from: 1, how: 'script' }]],
    ['eval "$(wget -qO- x)"', 0, [{ from: 1, how: 'script' }]],
    ['source <(curl x)', 0, [{ from: 1, how: 'script' }]],
    ['. <(curl x)', 0, [{ from: 1, how: 'script' }]],
    ['sh < <(curl x)', 0, [{ from: 1, how: 'script' }]],
    ['x=$(curl a); sh -c "$x"', 1, [{ from: 0, how: 'script' }]],
    ['curl x | tee >(sh)', 2, [{ from: 1, how: 'script' }]]
  ])('feeds: %s', async (line, index, fedBy) => {
    const { commands, concerns } = await analyzeOk(line)
    expect(commands[index]?.fedBy).toEqual(fedBy)
    if (fedBy.some((f) => f.how === 'script')) expect(concerns.map((c) => c.rule)).toContain('command.dynamic')
  })

  it('feedersOf follows feeds through intermediate commands', async () => {
    const { commands } = await analyzeOk('curl x | tee >(sh)')
    expect(feedersOf(commands, 2)).toEqual(
      expect.arrayContaining([
        { from: 1, how: 'script' },
        { from: 0, how: 'script' }
      ])
    )
  })

  it.each([
    ['bash <<EOF\nrm -rf /\nEOF\n', [['rm', '-rf', '/']], [['bash']]],
    ["sh <<'E'\nls $x\nE\n", [['ls', '$x']], [['sh']]],
    ['sh <<< "rm -rf /"', [['rm', '-rf', '/']], [['sh']]],
    ['eval "rm -rf /"', [['rm', '-rf', '/']], [['eval']]],
    ['eval rm -rf /', [['rm', '-rf', '/']], [['eval']]]
  ])('parses code fed to a shell: %s', async (line, expected, wrappers) => {
    const { commands, concerns } = await analyzeOk(line)
    expect(argvs(commands)).toEqual(expected)
    expect(commands[0]?.wrappers.map((w) => w.argv)).toEqual(wrappers)
    expect(concerns).toEqual([])
  })

  it('a here-doc piped into a shell is code from another command', async () => {
    const { commands, concerns } = await analyzeOk("cat <<'E' | sh\nrm -rf /\nE\n")
    expect(argvs(commands)).toEqual([['cat'], ['sh']])
    expect(commands[0]?.redirects[0]).toMatchObject({ op: '<<', target: { value: 'rm -rf /\n', static: true } })
    expect(commands[1]?.fedBy).toEqual([{ from: 0, how: 'script' }])
    expect(concerns.map((c) => c.rule)).toEqual(['command.dynamic'])
  })

  it('a dynamic script is a concern and its best reading is still parsed', async () => {
    const { commands, concerns } = await analyzeOk('a=rm; sh -c "$a -rf /"')
    expect(argvs(commands)).toEqual([
      ['sh', '-c', 'rm -rf /'],
      ['rm', '-rf', '/']
    ])
    expect(commands[1]?.argv.every((w) => !w.static)).toBe(true)
    expect(concerns.map((c) => c.rule)).toContain('command.dynamic')
  })

  it('an alias is a concern and its value is parsed', async () => {
    const { commands, concerns } = await analyzeOk("alias ls='rm -rf /'; eval \"alias x='sudo id'\"")
    expect(argvs(commands)).toEqual([['alias', 'ls=rm -rf /'], ['rm', '-rf', '/'], ['alias', 'x=sudo id'], ['id']])
    expect(concerns.filter((c) => c.rule === 'command.alias')).toHaveLength(2)
  })

  it('redirections of a compound statement reach its commands', async () => {
    const { commands } = await analyzeOk('{ a; b; } > /dev/sda')
    expect(commands.map((c) => c.redirects.map((r) => [r.op, r.target.value, r.writes]))).toEqual([[['>', '/dev/sda', true]], [['>', '/dev/sda', true]]])
  })

  it.each(['echo "unbalanced', "echo 'x", 'if true; then ls', 'cat <<EOF\nno end', 'ls )'])('a syntax error is a concern: %s', async (line) => {
    const { concerns } = await analyzeOk(line)
    expect(concerns.map((c) => c.rule)).toContain('command.parse_error')
  })

  it('keeps each command text short', async () => {
    const { commands } = await analyzeOk(`echo ${'x'.repeat(500)}`)
    expect(commands[0]?.text.length).toBeLessThanOrEqual(200)
  })
})
