import { describe, expect, it } from 'vitest'
import { analysisLimits, loadCommandAnalyzer } from './index'
import { analyzeOk, argvs } from './test-support'
import { command } from '../command-rules-test-support'

describe('loading', () => {
  it('loads the grammar once and analyses synchronously', async () => {
    const first = loadCommandAnalyzer()
    expect(loadCommandAnalyzer()).toBe(first)
    const analyzer = await first
    expect(analyzer.analyze('git status --short')).toEqual({
      ok: true,
      commands: [command(['git', 'status', '--short'])],
      concerns: []
    })
  })
})

describe('bad input is decided, never a crash or a hang', () => {
  const longest = 'a'.repeat(analysisLimits.maxBytes)
  it.each([
    ['one byte over the limit', `${longest}b`, 'command.too_long'],
    ['1 MB', 'x'.repeat(1 << 20), 'command.too_long'],
    ['multi-byte text over the limit', 'é'.repeat(analysisLimits.maxBytes / 2 + 1), 'command.too_long'],
    ['a NUL byte', 'ls\0; rm -rf /', 'command.nul_byte'],
    ['a NUL byte in a long line', `${'x'.repeat(1 << 20)}\0`, 'command.nul_byte'],
    ['a lone high surrogate', 'echo \uD800', 'command.invalid_text'],
    ['a lone low surrogate', 'echo \uDC00x', 'command.invalid_text'],
    ['64 KiB of a;', 'a;'.repeat(analysisLimits.maxBytes / 2), 'command.too_complex'],
    ['10k pipes', `${'a|'.repeat(10000)}a`, 'command.too_complex'],
    ['20k open ${', '${'.repeat(20000), 'command.too_complex']
  ])('%s → %s', async (_, line, rule) => {
    const result = (await loadCommandAnalyzer()).analyze(line)
    expect(result).toMatchObject({ ok: false, rule })
    if (!result.ok && rule === 'command.too_complex') expect(result.reason).toMatch(/budget/)
  })

  it('accepts a line of exactly the limit', async () => {
    const result = (await loadCommandAnalyzer()).analyze(`echo ${'a'.repeat(analysisLimits.maxBytes - 5)}`)
    expect(result.ok === false ? result.rule : 'ok').not.toBe('command.too_long')
  })

  it('accepts valid surrogate pairs', async () => {
    expect(argvs((await analyzeOk('echo 😀')).commands)).toEqual([['echo', '😀']])
  })

  it.each([
    ['depth-500 $( nesting', `echo ${'$('.repeat(500)}x${')'.repeat(500)}`],
    ['depth-500 subshells', `${'( '.repeat(500)}x${' )'.repeat(500)}`],
    ['depth-500 unclosed ((((', '('.repeat(500)],
    ['depth-500 unclosed $(', `echo ${'$('.repeat(500)}`],
    ['depth-500 backticks in strings', `echo ${'"$('.repeat(300)}`],
    ['unbalanced quotes', `echo "abc 'def ${'x '.repeat(20000)}`],
    ['a here-doc without its end', `cat <<EOF\n${'line\n'.repeat(5000)}`],
    ['eval nested 50 times', `${'eval '.repeat(50)}ls`]
  ])('%s: asks or blocks (a concern or a refusal), never runs unseen', async (_, line) => {
    const result = (await loadCommandAnalyzer()).analyze(line)
    if (result.ok) expect(result.concerns.length + (argvs(result.commands).some((a) => a[0] === 'x') ? 1 : 0)).toBeGreaterThan(0)
    else expect(result.rule).toBe('command.too_complex')
  })

  it('a walk over the word budget stops with command.too_complex', async () => {
    // Field splitting multiplies words without making the parse big.
    const { concerns } = await analyzeOk(`a='${'x '.repeat(500)}'; echo ${'$a '.repeat(analysisLimits.maxWords / 500 + 1)}`)
    expect(concerns.map((c) => c.rule)).toContain('command.too_complex')
  })

  it.each([
    ['eval', (inner: string) => `eval ${inner}`],
    ['sh -c', (inner: string) => `sh -c "${inner.replace(/[\\"$`]/g, '\\$&')}"`]
  ])('%s nested past the depth limit stops with command.too_complex', async (_, wrap) => {
    let line = 'rm -rf /'
    for (let i = 0; i < analysisLimits.maxScriptDepth; i++) line = wrap(line)
    expect(argvs((await analyzeOk(line)).commands)).toEqual([['rm', '-rf', '/']])
    const { commands, concerns } = await analyzeOk(wrap(line))
    expect(commands).toEqual([])
    expect(concerns.map((c) => c.rule)).toContain('command.too_complex')
  })
})
