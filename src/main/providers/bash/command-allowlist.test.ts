import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeTempDir } from '../../../../test/support/temp-home'
import { admitCommand, defaultAllowedPrefixes } from './command-allowlist'
import { splitCommandLine } from './command-line'

let dir: ReturnType<typeof makeTempDir>
let ws: string
beforeAll(() => {
  dir = makeTempDir('host-admission-')
  ws = join(dir.path, 'ws')
  mkdirSync(join(ws, 'src'), { recursive: true })
  writeFileSync(join(ws, 'src', 'app.ts'), 'export const answer = 42\n')
  mkdirSync(join(dir.path, 'out', 'deeper'), { recursive: true })
  symlinkSync(join(dir.path, 'out', 'deeper'), join(ws, 'deep-out'))
  symlinkSync(join(dir.path, 'out', 'gone'), join(ws, 'dangling'))
  symlinkSync(join(dir.path, 'out'), join(ws, '-d'))
})
afterAll(() => dir.remove())

const admit = (command: string, allowedPrefixes: readonly string[] = defaultAllowedPrefixes) =>
  admitCommand(splitCommandLine(command), { allowedPrefixes, cwd: ws, roots: [ws] })

describe("admitCommand: arguments are read with each program's own grammar", () => {
  const admitted: [string, string[]][] = [
    ['ls -la src', ['/usr/bin/ls', '-la', 'src']],
    ['head -5 src/app.ts', ['/usr/bin/head', '-5', 'src/app.ts']],
    ['head -n -1 src/app.ts', ['/usr/bin/head', '-n', '-1', 'src/app.ts']],
    ['grep -rn --include=*.ts answer src', ['/usr/bin/grep', '-rn', '--include=*.ts', 'answer', 'src']],
    // The first operand is grep's pattern, never opened: it may name anything.
    ['grep -r /etc/shadow src', ['/usr/bin/grep', '-r', '/etc/shadow', 'src']],
    // -e takes the next argument whatever it looks like, so `--` is the pattern here.
    ['grep -e -- src', ['/usr/bin/grep', '-e', '--', 'src']],
    [
      "find src -maxdepth 1 -type f -name '*.ts' -newer src/app.ts",
      ['/usr/bin/find', 'src', '-maxdepth', '1', '-type', 'f', '-name', '*.ts', '-newer', 'src/app.ts']
    ],
    ['wc -l -- src/app.ts', ['/usr/bin/wc', '-l', '--', 'src/app.ts']]
  ]
  for (const [command, argv] of admitted) {
    it(`admits ${JSON.stringify(command)} and runs the program from the system directories`, async () => {
      expect((await admit(command)).argv).toEqual(argv)
    })
  }

  const refused: [string, RegExp][] = [
    ['ls -- -d', /-d is outside the workspace/],
    ['ls deep-out/..', /deep-out\/\.\. is outside the workspace/],
    ['cat dangling', /points nowhere/],
    ['grep -e x -- -d', /-d is outside the workspace/],
    ['grep -e x --exclude-from=src/app.ts src', /grep --exclude-from=src\/app.ts is not allowed/],
    ['grep --fil=x src', /grep --fil is not an option the host runner knows/],
    ['find . -newer -d', /-d is outside the workspace/],
    ['find -L .', /find -L is not allowed/],
    ['find . -fprint out.txt', /find -fprint is not allowed/],
    ['find . -frobnicate', /find -frobnicate is not an expression the host runner knows/],
    ['head -c', /head -c needs a value/],
    ['tail -F src/app.ts', /tail -F is not allowed/],
    ['tail --follow=name src/app.ts', /tail --follow=name is not allowed/],
    ['cat --number=3 src/app.ts', /cat --number takes no value/],
    ['rg -z secret', /rg -z is not allowed/],
    ['git status --ignore-submodules=none', /git status --ignore-submodules=none is not allowed/],
    ['git log -pw', /combined short options/],
    ['git log -- ../x', /\.\.\/x is outside the workspace/],
    ['git show --textconv HEAD', /git show --textconv is not allowed/],
    ['git log -O/etc/order', /git log -O is not allowed/]
  ]
  for (const [command, reason] of refused) {
    it(`refuses ${JSON.stringify(command)}`, async () => {
      await expect(admit(command)).rejects.toMatchObject({ code: 'shell.command_refused', message: expect.stringMatching(reason) })
    })
  }

  it('accepts only operands for an operator-added program it has no table for', async () => {
    expect((await admit('sleep 1', ['sleep'])).argv).toEqual(['/usr/bin/sleep', '1'])
    await expect(admit('sleep --help', ['sleep'])).rejects.toThrow(/no option table for sleep/)
    await expect(admit('sleep -- -d', ['sleep'])).rejects.toThrow(/accepts operands only|outside the workspace/)
  })

  it('never runs a program named by path, even when the allowlist names one', async () => {
    await expect(admit('./bin/ls', ['./bin/ls'])).rejects.toThrow(/runs programs by name/)
  })
})
