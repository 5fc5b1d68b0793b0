import { describe, expect, it } from 'vitest'
import { analysisLimits, loadCommandAnalyzer } from './index'
import { analyzeOk, argvs } from './test-support'

/** Analyzer fixes for the red-team findings (test/security/attack-policy.test.ts). */
describe('words after a mid-command redirection are arguments', () => {
  it.each([
    ['rm 2>/dev/null -rf /', [['rm', '-rf', '/']]],
    ['rm -rf >/dev/null / >y z', [['rm', '-rf', '/', 'z']]],
    ['nice 2>&1 rm -rf /', [['rm', '-rf', '/']]],
    ['bash >/dev/null -c "rm -rf /"', [['rm', '-rf', '/']]],
    ['exec 2>x rm y', [['rm', 'y']]],
    ['cat <<<x -n y', [['cat', '-n', 'y']]]
  ])('%s', async (line, expected) => {
    const { commands } = await analyzeOk(line)
    expect(argvs(commands)).toEqual(expected)
  })

  it('keeps the first destination as the target', async () => {
    const { commands } = await analyzeOk('rm 2>/dev/null -rf /')
    expect(commands[0]?.redirects).toEqual([{ op: '>', fd: 2, target: { value: '/dev/null', static: true }, writes: true }])
  })
})

describe('line continuations are joined the way bash joins them', () => {
  it.each([
    ['r\\\nm -rf /', [['rm', '-rf', '/']]],
    ["sh -c 'r\\\nm -rf /'", [['rm', '-rf', '/']]],
    ['echo "a\\\nb"', [['echo', 'ab']]],
    ["echo 'a\\\nb'", [['echo', 'a\\\nb']]],
    ['echo # x \\\nrm', [['echo'], ['rm']]],
    ['echo \\\\\nrm', [['echo', '\\'], ['rm']]],
    ["cat <<'E'\nfoo\\\nE\nbar", [['cat'], ['bar']]],
    ['cat <<E\nfoo\\\nE\nE\nbar', [['cat'], ['bar']]]
  ])('%j', async (line, expected) => {
    expect(argvs((await analyzeOk(line)).commands)).toEqual(expected)
  })
})

describe('every substitution is walked', () => {
  it.each([
    'echo ${x:-`rm -rf /`}',
    'echo ${x#$(rm -rf /)}',
    'echo ${x/`rm -rf /`/y}',
    'echo `echo \\`rm -rf /\\``',
    'a[$(rm -rf /)]=1',
    'a[$(rm -rf /)]=1 ls',
    'declare a[$(rm -rf /)]=1',
    'readonly a[`rm -rf /`]=1',
    'coproc ( rm -rf / )',
    'declare -a "x=(\\$(rm -rf /))"'
  ])('%s', async (line) => {
    expect(argvs((await analyzeOk(line)).commands)).toContainEqual(['rm', '-rf', '/'])
  })

  it('walks a backtick body once after removing its escapes', async () => {
    expect(argvs((await analyzeOk('echo `echo $(a) \\$(b)`')).commands).filter((a) => a.length === 1)).toEqual([['a'], ['b']])
  })
})

describe('code bash evaluates at run time', () => {
  it.each([
    'trap "rm -rf /" EXIT',
    'mapfile -C "rm -rf / #" -c 1 < x',
    'compgen -C "rm -rf /" x',
    'complete -C "rm -rf /" x',
    'PROMPT_COMMAND="rm -rf /" bash -i',
    "export PS1='$(rm -rf /)'",
    "env 'BASH_FUNC_ls%%=() { rm -rf /; }' bash -c ls",
    'coproc rm -rf /',
    'coproc { rm -rf /; }',
    'coproc N while true; do rm -rf /; done',
    'parallel ::: "rm -rf /"',
    'parallel rm ::: -rf /',
    'sg wheel -c "rm -rf /"'
  ])('%s', async (line) => {
    expect(argvs((await analyzeOk(line)).commands)).toContainEqual(['rm', '-rf', '/'])
  })

  it.each([
    ['x=\'$(rm -rf /)\'; echo "${x@P}"', 'command.dynamic'],
    ["x='a[$(rm -rf /)]'; echo $(( x ))", 'command.dynamic'],
    ["x='a[$(rm -rf /)]'; (( x + 1 ))", 'command.dynamic'],
    ["x='a[$(rm -rf /)]'; [[ $x -eq 1 ]]", 'command.dynamic'],
    ["x='a[$(rm -rf /)]'; echo ${!x}", 'command.dynamic'],
    ["x='a[$(rm -rf /)]'; let x+1", 'command.dynamic'],
    ["unset 'a[$(rm -rf /)]'", 'command.dynamic'],
    ['BASH_ENV=./x.sh bash -c true', 'command.dynamic'],
    ['echo "rm -rf /" | xargs -0 sh -c', 'command.dynamic'],
    ['echo "rm -rf /" | xargs -I% sh -c %', 'command.dynamic'],
    ['echo "rm -rf /" | parallel', 'command.dynamic'],
    ['hash -p /bin/rm ls; ls -rf /', 'command.alias'],
    ['do echo', 'command.parse_error'],
    ['{echo;}', 'command.parse_error'],
    ['f() {}', 'command.parse_error'],
    ['echo ;; echo', 'command.parse_error']
  ])('%s → %s', async (line, rule) => {
    expect((await analyzeOk(line)).concerns.map((c) => c.rule)).toContain(rule)
  })

  it.each(["x='a[1]'; echo $(( x ))", 'x=\'$(date)\'; echo "$x"', 'trap - EXIT', 'trap "rm -f tmp" EXIT', 'echo $((1 + 2))'])(
    '%s has no concern',
    async (line) => {
      expect((await analyzeOk(line)).concerns).toEqual([])
    }
  )
})

describe('more wrappers', () => {
  it.each([
    ['env - rm x', ['env', '-']],
    ['env -C / rm x', ['env', '-C', '/']],
    ['strace -f -o log rm x', ['strace', '-f', '-o', 'log']],
    ['ltrace rm x', ['ltrace']],
    ['unshare -r rm x', ['unshare', '-r']],
    ['taskset -c 0 rm x', ['taskset', '-c', '0']],
    ['chrt -f 10 rm x', ['chrt', '-f', '10']],
    ['fakeroot -- rm x', ['fakeroot', '--']],
    ['systemd-run --user -p X=1 rm x', ['systemd-run', '--user', '-p', 'X=1']],
    ['systemd-inhibit --why=x rm x', ['systemd-inhibit', '--why=x']],
    ['toybox rm x', ['toybox']],
    ['runcon ctx rm x', ['runcon', 'ctx']],
    ['unbuffer -p rm x', ['unbuffer', '-p']],
    ['caffeinate -i rm x', ['caffeinate', '-i']],
    ['gdb -q --args rm x', ['gdb', '-q', '--args']],
    ['builtin command exec -a n rm x', ['exec', '-a', 'n']]
  ])('%s', async (line, wrapper) => {
    const { commands } = await analyzeOk(line)
    expect(argvs(commands)).toEqual([['rm', 'x']])
    expect(commands[0]?.wrappers.at(-1)?.argv).toEqual(wrapper)
  })

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])('%s is a plain program, not an object key', async (name) => {
    expect(argvs((await analyzeOk(`${name} x`)).commands)).toEqual([[name, 'x']])
  })

  it.each(['ksh93', 'mksh', 'tcsh', 'csh', 'fish', 'rbash', 'posh', 'yash', 'bash5'])('%s -c is a shell', async (shell) => {
    expect(argvs((await analyzeOk(`${shell} -c "rm x"`)).commands)).toEqual([['rm', 'x']])
  })
})

describe('brace expansion', () => {
  it.each([
    ['rm -rf /{bin,usr}', [['rm', '-rf', '/bin', '/usr']], true],
    ['echo a{1..3}b x{a,b{c,d}}y', [['echo', 'a1b', 'a2b', 'a3b', 'xay', 'xbcy', 'xbdy']], true],
    ['echo {05..7} {c..a}', [['echo', '05', '06', '07', 'c', 'b', 'a']], true],
    ['echo "{a,b}" \\{a,b\\} a,b {a} {a,b', [['echo', '{a,b}', '{a,b}', 'a,b', '{a}', '{a,b']], true],
    ['cat ~/.{ssh,aws}/x', [['cat', '~/.ssh/x', '~/.aws/x']], false],
    ['echo {a..z}{a..z}', [['echo', '{a..z}{a..z}']], false]
  ])('%s', async (line, expected, allStatic) => {
    const { commands } = await analyzeOk(line)
    expect(argvs(commands)).toEqual(expected)
    expect(commands[0]?.argv.every((w) => w.static)).toBe(allStatic)
  })
})

describe('budget during word evaluation', () => {
  it('x=$x$x repeated stops quickly as too complex', async () => {
    const analyzer = await loadCommandAnalyzer()
    const t = performance.now()
    const result = analyzer.analyze(`x=ab; ${'x=$x$x; '.repeat(40)}echo $x`)
    expect(performance.now() - t).toBeLessThan(500)
    expect(result.ok && result.concerns.map((c) => c.rule)).toContain('command.too_complex')
  })

  it('many uses of a long literal value run out of word characters', async () => {
    const analyzer = await loadCommandAnalyzer()
    const value = 'a'.repeat(analysisLimits.maxVariableChars)
    const result = analyzer.analyze(`x=${value}; echo ${'$x '.repeat(100)}`)
    expect(result.ok && result.concerns.map((c) => c.rule)).toContain('command.too_complex')
  })
})
