import { describe, expect, it } from 'vitest'
import { analyzeOk, argvs } from './test-support'

/** Each line: the effective argv of every command and the wrappers of the last one. */
describe('wrappers are looked through and kept', () => {
  it.each([
    ['sudo rm -rf /', [['rm', '-rf', '/']], [['sudo']]],
    ['sudo -u bob -- rm x', [['rm', 'x']], [['sudo', '-u', 'bob', '--']]],
    ['sudo -E HOME=/ rm x', [['rm', 'x']], [['sudo', '-E', 'HOME=/']]],
    ['doas -u root rm x', [['rm', 'x']], [['doas', '-u', 'root']]],
    ['env -i -u PATH X=1 rm x', [['rm', 'x']], [['env', '-i', '-u', 'PATH', 'X=1']]],
    ['nice -n 10 rm x', [['rm', 'x']], [['nice', '-n', '10']]],
    ['nice -5 rm x', [['rm', 'x']], [['nice', '-5']]],
    ['ionice -c 3 rm x', [['rm', 'x']], [['ionice', '-c', '3']]],
    ['timeout -k 5 --signal=KILL 30s rm x', [['rm', 'x']], [['timeout', '-k', '5', '--signal=KILL', '30s']]],
    ['nohup rm x', [['rm', 'x']], [['nohup']]],
    ['command -p rm x', [['rm', 'x']], [['command', '-p']]],
    ['command -v rm', [['command', '-v', 'rm']], []],
    ['exec rm x', [['rm', 'x']], [['exec']]],
    ['time -p rm x', [['rm', 'x']], [['time', '-p']]],
    ['stdbuf -oL rm x', [['rm', 'x']], [['stdbuf', '-oL']]],
    ['setsid -f rm x', [['rm', 'x']], [['setsid', '-f']]],
    ['busybox rm x', [['rm', 'x']], [['busybox']]],
    ['chroot /mnt rm x', [['rm', 'x']], [['chroot', '/mnt']]],
    ['watch -x rm x', [['rm', 'x']], [['watch', '-x']]],
    ['watch -n 5 "rm x; ls"', [['rm', 'x'], ['ls']], [['watch', '-n', '5']]],
    ['flock /tmp/l rm x', [['rm', 'x']], [['flock', '/tmp/l']]],
    ['flock -n /tmp/l -c "rm x"', [['rm', 'x']], [['flock', '-n', '/tmp/l', '-c']]],
    ['su -c "rm x" root', [['rm', 'x']], [['su', '-c', 'root']]],
    ['su root', [['su', 'root']], []],
    ['script -qc "rm x" /dev/null', [['rm', 'x']], [['script', '-qc', '/dev/null']]],
    ['/usr/bin/sudo /bin/rm x', [['/bin/rm', 'x']], [['/usr/bin/sudo']]],
    ['sh -c "rm x"', [['rm', 'x']], [['sh', '-c']]],
    ['bash -lc "rm x"', [['rm', 'x']], [['bash', '-lc']]],
    ['bash -e -o pipefail -c "rm x" name', [['rm', 'x']], [['bash', '-e', '-o', 'pipefail', '-c']]],
    ['busybox sh -c "rm x"', [['rm', 'x']], [['busybox'], ['sh', '-c']]],
    [
      'zsh -c "sh -c \'rm x\'"',
      [['rm', 'x']],
      [
        ['zsh', '-c'],
        ['sh', '-c']
      ]
    ],
    ['sudo -u x env Y=1 bash -c "nice rm -rf /"', [['rm', '-rf', '/']], [['sudo', '-u', 'x'], ['env', 'Y=1'], ['bash', '-c'], ['nice']]],
    ['bash script.sh arg', [['bash', 'script.sh', 'arg']], []],
    ['sudo -l', [['sudo', '-l']], []]
  ])('%s', async (line, expected, wrappers) => {
    const { commands, concerns } = await analyzeOk(line)
    expect(argvs(commands)).toEqual(expected)
    expect(commands[commands.length - 1]?.wrappers.map((w) => w.argv)).toEqual(wrappers)
    expect(concerns).toEqual([])
  })

  it('env keeps its assignments on the command', async () => {
    const { commands } = await analyzeOk('env A=1 B=two make')
    expect(commands[0]?.assignments).toEqual([
      { name: 'A', value: { value: '1', static: true } },
      { name: 'B', value: { value: 'two', static: true } }
    ])
  })

  it('xargs: the command takes its arguments from the producer', async () => {
    const { commands } = await analyzeOk('find . -name "*.o" -print0 | xargs -0 -n 10 rm -f')
    expect(argvs(commands)).toEqual([
      ['find', '.', '-name', '*.o', '-print0'],
      ['rm', '-f']
    ])
    expect(commands[1]).toMatchObject({ argsFromStdin: true, fedBy: [{ from: 0, how: 'argument' }], wrappers: [{ argv: ['xargs', '-0', '-n', '10'] }] })
  })

  it('find is a command and so is each -exec', async () => {
    const { commands } = await analyzeOk('find / -name x -exec rm -rf {} \\; -execdir sh -c "chmod 777 {}" +')
    expect(argvs(commands)).toEqual([
      ['find', '/', '-name', 'x', '-exec', 'rm', '-rf', '{}', ';', '-execdir', 'sh', '-c', 'chmod 777 {}', '+'],
      ['rm', '-rf', '{}'],
      ['chmod', '777', '{}']
    ])
    expect(commands[1]?.wrappers).toEqual([{ argv: ['find', '/', '-name', 'x', '-exec'] }])
    expect(commands[2]?.wrappers.map((w) => w.argv[0])).toEqual(['find', 'sh'])
  })

  it('a wrapper around a dynamic name still shows the best reading', async () => {
    const { commands, concerns } = await analyzeOk('a=rm; sudo $a -rf /')
    expect(argvs(commands)).toEqual([['rm', '-rf', '/']])
    expect(commands[0]?.wrappers).toEqual([{ argv: ['sudo'] }])
    expect(concerns.map((c) => c.rule)).toEqual(['command.dynamic'])
  })
})
