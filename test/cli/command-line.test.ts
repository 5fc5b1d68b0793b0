import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runAirlock, startServe } from '../support/run-cli'
import { makeTempDir } from '../support/temp-home'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => (dir = makeTempDir()))
afterEach(() => dir.remove())

const lines = (text: string) => text.split('\n').filter((line) => line.length > 0)
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

describe('airlock CLI usage', () => {
  it('--help lists the subcommands and exits 0', () => {
    const result = runAirlock(['--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/Usage: airlock <command>/)
    expect(result.stdout).toMatch(/^\s+serve\s+/m)
  })

  it('no command prints the usage on stderr and exits 2', () => {
    const result = runAirlock([])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/Usage: airlock/)
  })

  const badUsage: [string, string[], RegExp][] = [
    ['an unknown subcommand', ['launch-missiles'], /unknown command "launch-missiles"/],
    ['an unknown option', ['serve', '--frobnicate'], /unknown option --frobnicate/],
    ['a short unknown option', ['serve', '-x'], /unknown option -x/],
    ['a port that is not a number', ['serve', '--port', 'eighty'], /--port must be a port number/],
    ['a port out of range', ['serve', '--port', '70000'], /--port must be a port number/],
    ['an option missing its value', ['serve', '--home'], /--home needs a value/],
    ['an option followed by another option instead of its value', ['serve', '--home', '--no-open'], /^airlock: --home needs a value$/],
    ['an empty home', ['serve', '--home='], /^airlock: --home needs a value$/],
    ['a flag given a value', ['serve', '--no-open=yes'], /^airlock: --no-open takes no value$/],
    ['an unknown option of another command', ['serve', '--offline'], /^airlock: unknown option --offline$/],
    ['an unknown option on images', ['images', 'list', '--frobnicate'], /^airlock: unknown option --frobnicate$/],
    ['a gateway port that is not a number', ['serve', '--gateway-port', 'mcp'], /^airlock: --gateway-port must be a port number \(0-65535\), got "mcp"$/],
    ['a gateway port out of range', ['serve', '--gateway-port=65536'], /^airlock: --gateway-port must be a port number \(0-65535\), got "65536"$/],
    ['a gateway port missing its value', ['serve', '--gateway-port'], /^airlock: --gateway-port needs a value$/],
    ['a stray argument', ['serve', 'now'], /serve takes no arguments/]
  ]
  for (const [name, args, message] of badUsage) {
    it(`refuses ${name}: exit 2, one line on stderr`, () => {
      const result = runAirlock(args, { AIRLOCK_HOME: join(dir.path, 'home') })
      expect(result.code).toBe(2)
      expect(lines(result.stderr)).toEqual([expect.stringMatching(message)])
      expect(result.stdout).toBe('')
      expect(existsSync(join(dir.path, 'home'))).toBe(false)
    })
  }
})

describe('airlock CLI failures of the thing asked', () => {
  it('a home that cannot be created: exit 1, says what to do, creates nothing', () => {
    writeFileSync(join(dir.path, 'a-file'), 'not a directory')
    const result = runAirlock(['serve', '--port', '0', '--home', join(dir.path, 'a-file', 'home')])
    expect(result.code).toBe(1)
    expect(lines(result.stderr)).toHaveLength(1)
    expect(result.stderr).toMatch(/Cannot create the Airlock home .* --home or AIRLOCK_HOME/)
    expect(readdirSync(dir.path)).toEqual(['a-file'])
  })

  it('a corrupt database: exit 1, says what to do, the home is unchanged', () => {
    const db = join(dir.path, 'airlock.db')
    writeFileSync(db, 'garbage '.repeat(1000))
    const before = digest(db)
    const result = runAirlock(['serve', '--port', '0', '--home', dir.path])
    expect(result.code).toBe(1)
    expect(lines(result.stderr)).toHaveLength(1)
    expect(result.stderr).toMatch(/not a readable Airlock database.*Move it aside/)
    expect(digest(db)).toBe(before)
    expect(readdirSync(dir.path)).toEqual(['airlock.db'])
  })

  it('a locked database: exit 1, says what to do', () => {
    const holder = new Database(join(dir.path, 'airlock.db'))
    holder.exec('create table schema_version (version integer primary key, name text not null, applied_at text not null)')
    holder.exec('begin exclusive')
    try {
      const result = runAirlock(['serve', '--port', '0', '--home', dir.path])
      expect(result.code).toBe(1)
      expect(lines(result.stderr)).toHaveLength(1)
      expect(result.stderr).toMatch(/locked by another process.*try again/)
    } finally {
      holder.exec('rollback')
      holder.close()
    }
    expect(readdirSync(dir.path).sort()).toEqual(['airlock.db'])
  })

  it('a port in use: exit 1, says which option to change', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const result = runAirlock(['serve', '--port', String(port), '--home', dir.path])
      expect(result.code).toBe(1)
      expect(lines(result.stderr)).toEqual([`airlock: Port ${port} on 127.0.0.1 is in use; choose another with --port.`])
      expect(result.stdout).toBe('')
    } finally {
      blocker.close()
    }
  })
})

describe('airlock serve', () => {
  it('--help prints its usage, naming --gateway-port, and exits 0', () => {
    const result = runAirlock(['serve', '--help'])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Usage: airlock serve \[--home DIR\] \[--port 7410\] \[--gateway-port 7411\] \[--no-open\] \[--rotate-token\]$/m)
    expect(result.stderr).toBe('')
  })

  it('prints the console URL as its first line, serves it, and stops cleanly on SIGTERM', async () => {
    const served = await startServe(['--port', '0', '--gateway-port', '0', '--home', dir.path])
    try {
      expect(served.firstLine).toMatch(/^Airlock console: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{20,}$/)
      const url = served.firstLine.replace('Airlock console: ', '')
      // The token is exchanged for a session cookie and dropped from the URL (303), then the page is served by cookie.
      const exchange = await fetch(url, { redirect: 'manual' })
      expect(exchange.status).toBe(303)
      const cookie = exchange.headers.get('set-cookie')!.split(';')[0]!
      const page = await fetch(new URL('/', url), { headers: { cookie } })
      expect(page.status).toBe(200)
      expect(await page.text()).toMatch(/<div id="root">/)
      expect((await fetch(url.replace(/\?token=.*/, ''))).status).toBe(401)
      expect(readdirSync(dir.path).sort()).toEqual(expect.arrayContaining(['airlock.db', 'images', 'logs', 'workspaces']))
    } finally {
      expect(await served.stop()).toBe(0)
    }
  })

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`on ${signal} disposes the host before it exits: exit 0, the database closed cleanly`, async () => {
      const served = await startServe(['--port', '0', '--gateway-port', '0', '--home', dir.path])
      // SQLite removes the write-ahead log when the last connection closes, so a -wal file
      // left behind means the process ended without the host closing its store.
      expect(existsSync(join(dir.path, 'airlock.db-wal'))).toBe(true)
      const exited = new Promise<number | null>((resolveExit) => served.child.once('exit', (code) => resolveExit(code)))
      served.child.kill(signal)
      expect(await exited).toBe(0)
      expect(readdirSync(dir.path).filter((name) => name.startsWith('airlock.db'))).toEqual(['airlock.db'])
    })
  }
})

describe('airlock images', () => {
  const imagesUsage: [string[], RegExp][] = [
    [['images'], /images takes list or provision/],
    [['images', 'burn'], /images takes list or provision/],
    [['images', 'provision'], /needs a language/],
    [['images', 'provision', 'cobol'], /unknown language cobol/],
    [['images', 'list', 'python'], /takes no language/]
  ]
  for (const [args, message] of imagesUsage) {
    it(`refuses ${args.join(' ')}: exit 2, one line`, () => {
      const result = runAirlock(args)
      expect(result.code).toBe(2)
      expect(lines(result.stderr)).toEqual([expect.stringMatching(message)])
    })
  }
})
