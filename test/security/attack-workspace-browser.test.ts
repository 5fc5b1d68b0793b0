import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { linkSync, mkdirSync, realpathSync, renameSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../src/main/host'
import { makeTempDir } from '../support/temp-home'

// Attack: the console's workspace browser (`workspace.list/read/recent`) walks a tree that
// sandboxed code writes. Links to /etc/passwd, to another agent's workspace or to the Airlock home,
// links in parent folders, `..`, absolute paths, NUL, FIFOs, devices, sockets, hard links, huge
// files, deep and wide trees, and a folder or file swapped for a link while the browser works must
// never show a byte or a name from outside the agent's workspace, and must never hang the host.
// Everything goes through the real host's contract dispatcher, as a console calls it.

const outsideSecret = 'OUTSIDE-SECRET-b41e'
const otherSecret = 'OTHER-AGENT-SECRET-0c7d'
const homeSecret = 'AIRLOCK-HOME-SECRET-5a90'
/** Text and names that exist only outside the workspace: no answer may ever contain one. */
const forbidden = [outsideSecret, otherSecret, homeSecret, 'root:x:0:0', 'outside-secret.txt', 'other-secret.txt', 'home-secret.txt', 'airlock.db']

let home: ReturnType<typeof makeTempDir>
let host: Host
let ws: string
let outside: string
const ctx = { transport: 'websocket' as const }
type Answer = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } }

/** One browser call as the console makes it; asserts it answered quickly and leaked nothing. */
async function call(name: 'list' | 'read' | 'recent', input: Record<string, unknown>, withinMs = 5000): Promise<Answer> {
  const started = performance.now()
  const answer = (await host.dispatch(`airlock:workspace:${name}`, { agentId: 'coder', ...input }, ctx)) as Answer
  expect(performance.now() - started, `${name} ${JSON.stringify(input)} took too long`).toBeLessThan(withinMs)
  const text = JSON.stringify(answer)
  for (const word of forbidden) expect(text, `${name} ${JSON.stringify(input)} leaked ${word}`).not.toContain(word)
  return answer
}
const codeOf = (answer: Answer) => (answer.ok ? 'ok' : answer.error.code)
const at = (path: string) => join(ws, path)

beforeAll(async () => {
  home = makeTempDir('airlock-browser-attack-', { outsideTmp: true })
  host = createHost({ home: home.path, logError: () => undefined })
  await host.recovered
  ws = realpathSync(host.agents.service.create('coder', {}).workspace)
  const other = realpathSync(host.agents.service.create('other', {}).workspace)
  writeFileSync(join(other, 'other-secret.txt'), `${otherSecret}\n`)
  writeFileSync(join(home.path, 'home-secret.txt'), `${homeSecret}\n`)
  outside = join(home.path, 'outside')
  mkdirSync(outside)
  writeFileSync(join(outside, 'outside-secret.txt'), `${outsideSecret}\n`)
  writeFileSync(join(outside, 'shared.txt'), `${outsideSecret}\n`)
})
afterAll(async () => {
  await host.dispose()
  home.remove()
})

describe('attack: links out of the workspace are shown as links and never followed', () => {
  const links: [string, () => string][] = [
    ['to /etc/passwd', () => '/etc/passwd'],
    ['to /etc', () => '/etc'],
    ["to another agent's workspace", () => join(ws, '..', 'other')],
    ['to the Airlock home', () => home.path],
    ['relative, up to the workspaces folder', () => '../..'],
    ['to a file outside', () => join(outside, 'outside-secret.txt')],
    ['to itself (a loop)', () => 'loop-self']
  ]
  it.each(links.map(([name, target], index) => [name, target, `link-${index}`] as const))('a link %s', async (_name, target, dirName) => {
    mkdirSync(at(dirName))
    const name = target() === 'loop-self' ? 'loop-self' : 'l'
    symlinkSync(target(), at(`${dirName}/${name}`))
    const listing = await call('list', { path: dirName })
    expect(listing).toMatchObject({ ok: true, value: { entries: [{ name, kind: 'symlink', bytes: 0 }] } })
    expect(codeOf(await call('read', { path: `${dirName}/${name}` }))).toBe('workspace.symlink')
    expect(codeOf(await call('list', { path: `${dirName}/${name}` }))).toBe('workspace.symlink')
    for (const below of ['passwd', 'other-secret.txt', 'home-secret.txt', 'airlock.db', 'outside-secret.txt', 'other/other-secret.txt']) {
      expect(['workspace.symlink', 'workspace.not_found']).toContain(codeOf(await call('read', { path: `${dirName}/${name}/${below}` })))
    }
  })

  it('a link in a parent folder, deep down, stops the walk at the link', async () => {
    mkdirSync(at('parent/a/b'), { recursive: true })
    symlinkSync(outside, at('parent/a/b/c'))
    const read = await call('read', { path: 'parent/a/b/c/outside-secret.txt' })
    expect(read).toMatchObject({ ok: false, error: { code: 'workspace.symlink', message: expect.stringContaining('parent/a/b/c is a symbolic link') } })
    expect(codeOf(await call('list', { path: 'parent/a/b/c' }))).toBe('workspace.symlink')
  })

  it('recent never walks into a link, and lists nothing from outside', async () => {
    symlinkSync('/etc', at('recent-etc'))
    symlinkSync(outside, at('recent-out'))
    const recent = await call('recent', { limit: 200 })
    expect(recent.ok).toBe(true)
    const paths = (recent as { value: { changes: { path: string }[] } }).value.changes.map((c) => c.path)
    expect(paths.filter((p) => p.startsWith('recent-') || p.includes('passwd'))).toEqual([])
  })
})

describe('attack: paths that leave the workspace are refused before anything is touched', () => {
  const paths: [string, string, 'list' | 'read'][] = [
    ['..', '..', 'list'],
    ['.. inside a path', 'scratch/../../other/other-secret.txt', 'read'],
    ['an absolute path', '/etc/passwd', 'read'],
    ['an absolute folder', '/etc', 'list'],
    ['a NUL byte', 'scratch/a\0b', 'read'],
    ['a trailing ..', 'scratch/..', 'list']
  ]
  it.each(paths)('%s (%s)', async (_name, path, name) => {
    const answer = await call(name, { path })
    expect(answer).toMatchObject({ ok: false, error: { code: 'validation_failed', message: expect.stringContaining('input.path') } })
  })

  it('an agent id that is not a slug, and an agent that does not exist', async () => {
    expect(codeOf((await host.dispatch('airlock:workspace:list', { agentId: '../other' }, ctx)) as Answer)).toBe('validation_failed')
    expect(codeOf((await host.dispatch('airlock:workspace:read', { agentId: 'ghost', path: 'x' }, ctx)) as Answer)).toBe('agent.not_found')
  })

  it('a workspace root replaced by a link (by anyone) is refused, not followed', async () => {
    const victim = realpathSync(host.agents.service.create('victim', {}).workspace)
    renameSync(victim, `${victim}-moved`)
    symlinkSync(outside, victim)
    const answer = (await host.dispatch('airlock:workspace:list', { agentId: 'victim' }, ctx)) as Answer
    expect(codeOf(answer)).toBe('workspace.unavailable')
    expect(JSON.stringify(answer)).not.toContain('outside-secret.txt')
  })
})

describe('attack: special files never block, act or leak', () => {
  it('a FIFO is refused at once and is never opened (a writer waiting on it stays blocked)', async () => {
    mkdirSync(at('special'), { recursive: true })
    execFileSync('mkfifo', [at('special/pipe')])
    // This writer blocks until someone opens the FIFO for reading: the browser must not.
    const writer = spawn('sh', ['-c', `echo hello > ${JSON.stringify(at('special/pipe'))}`], { stdio: 'ignore' })
    try {
      expect(await call('read', { path: 'special/pipe' }, 2000)).toMatchObject({ ok: false, error: { code: 'workspace.not_regular_file' } })
      expect(await call('list', { path: 'special' })).toMatchObject({ ok: true, value: { entries: [{ name: 'pipe', kind: 'other' }] } })
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(writer.exitCode).toBeNull()
    } finally {
      writer.kill('SIGKILL')
    }
  })

  it.skipIf(process.getuid?.() !== 0)('a device file is refused without being opened (root can mknod)', async () => {
    mkdirSync(at('devices'), { recursive: true })
    execFileSync('mknod', [at('devices/zero'), 'c', '1', '5'])
    execFileSync('mknod', [at('devices/disk'), 'b', '7', '0'])
    expect(codeOf(await call('read', { path: 'devices/zero' }))).toBe('workspace.not_regular_file')
    expect(codeOf(await call('read', { path: 'devices/disk' }))).toBe('workspace.not_regular_file')
  })

  it('a unix socket is refused', async () => {
    mkdirSync(at('sockets'), { recursive: true })
    const server: Server = createServer()
    await new Promise<void>((resolve) => server.listen(at('sockets/s.sock'), resolve))
    try {
      expect(codeOf(await call('read', { path: 'sockets/s.sock' }))).toBe('workspace.not_regular_file')
    } finally {
      server.close()
    }
  })

  it('a hard link to a file outside is refused (it may be anything)', async () => {
    mkdirSync(at('hard'), { recursive: true })
    linkSync(join(outside, 'outside-secret.txt'), at('hard/innocent.txt'))
    expect(await call('read', { path: 'hard/innocent.txt' })).toMatchObject({ ok: false, error: { code: 'workspace.hard_link' } })
  })

  it('a huge sparse file is read only up to the limit, at once', async () => {
    mkdirSync(at('huge'), { recursive: true })
    writeFileSync(at('huge/big.log'), 'start\n')
    truncateSync(at('huge/big.log'), 64 * 1024 ** 3)
    expect(await call('read', { path: 'huge/big.log' }, 2000)).toMatchObject({
      ok: true,
      value: { bytes: 64 * 1024 ** 3, truncated: true, binary: true, text: null }
    })
  })
})

describe('attack: trees built to exhaust the walk', () => {
  it('a deep tree and a wide folder: list is cut, recent stops at its bounds, both answer quickly', async () => {
    let deep = at('trees/deep')
    mkdirSync(deep, { recursive: true })
    const steps = Array.from({ length: 400 }, () => 'd')
    mkdirSync(join(deep, ...steps), { recursive: true })
    writeFileSync(join(deep, ...steps, 'bottom.txt'), 'bottom')
    deep = `trees/deep/${steps.join('/')}`
    expect(await call('read', { path: `${deep}/bottom.txt` })).toMatchObject({ ok: true, value: { text: 'bottom' } })
    mkdirSync(at('trees/wide'))
    for (let i = 0; i < 25_000; i++) writeFileSync(at(`trees/wide/f${i}`), '')
    expect(await call('list', { path: 'trees/wide' })).toMatchObject({ ok: true, value: { truncated: true } })
    const recent = await call('recent', { limit: 10 }, 5000)
    expect(recent).toMatchObject({ ok: true, value: { complete: false } })
    expect((recent as { value: { scanned: number } }).value.scanned).toBeLessThanOrEqual(20_000)
  }, 60_000)
})

/** Starts a process that keeps swapping two names with renameat2(RENAME_EXCHANGE), as sandboxed code can; stops it afterwards. */
function swapper(a: string, b: string): { stop(): Promise<void> } {
  const script = `import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nwhile True:\n    libc.renameat2(-100, ${JSON.stringify(a)}.encode(), -100, ${JSON.stringify(b)}.encode(), 2)\n`
  const child: ChildProcess = spawn('python3', ['-c', script], { stdio: 'ignore' })
  return {
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      })
  }
}

describe('attack: a folder or file swapped for a link while the browser works', () => {
  it('a folder exchanged with a link to outside, over and over: every answer is the inside folder or a refusal', async () => {
    mkdirSync(at('race/d'), { recursive: true })
    // The same name inside and outside: the content tells which one a read reached.
    writeFileSync(at('race/d/shared.txt'), 'inside\n')
    symlinkSync(outside, at('race/l'))
    const swap = swapper(at('race/d'), at('race/l'))
    const outcomes = new Map<string, number>()
    try {
      for (let round = 0; round < 300; round++) {
        for (const [name, input] of [
          ['list', { path: 'race/d' }],
          ['read', { path: 'race/d/shared.txt' }],
          ['list', { path: 'race/l' }]
        ] as const) {
          const answer = await call(name, input)
          if (answer.ok && name === 'read') expect(answer.value).toMatchObject({ text: 'inside\n' })
          outcomes.set(codeOf(answer), (outcomes.get(codeOf(answer)) ?? 0) + 1)
        }
        if (round % 50 === 0) await call('recent', { limit: 200 })
      }
    } finally {
      await swap.stop()
    }
    // The race ran: some calls met the real folder, some the link (refused).
    expect(outcomes.get('ok') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
    expect(outcomes.get('workspace.symlink') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
  }, 120_000)

  it('a file exchanged with a link to a secret, and with a FIFO: reads show the inside file or refuse, never block', async () => {
    mkdirSync(at('race2'), { recursive: true })
    writeFileSync(at('race2/f'), 'inside\n')
    symlinkSync(join(outside, 'outside-secret.txt'), at('race2/link'))
    execFileSync('mkfifo', [at('race2/fifo')])
    const swaps = [swapper(at('race2/f'), at('race2/link')), swapper(at('race2/link'), at('race2/fifo'))]
    const outcomes = new Map<string, number>()
    try {
      for (let round = 0; round < 600; round++) {
        const answer = await call('read', { path: 'race2/f' }, 2000)
        if (answer.ok) expect(answer.value).toMatchObject({ text: 'inside\n' })
        outcomes.set(codeOf(answer), (outcomes.get(codeOf(answer)) ?? 0) + 1)
      }
    } finally {
      for (const swap of swaps) await swap.stop()
    }
    expect(outcomes.get('ok') ?? 0, JSON.stringify([...outcomes])).toBeGreaterThan(0)
    expect(
      (outcomes.get('workspace.symlink') ?? 0) + (outcomes.get('workspace.not_regular_file') ?? 0) + (outcomes.get('workspace.changed') ?? 0),
      JSON.stringify([...outcomes])
    ).toBeGreaterThan(0)
  }, 120_000)
})
