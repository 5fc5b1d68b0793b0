#!/usr/bin/env node
// `npm start`: the desktop app when Electron can start here, else the web console (with the
// reason said first). Electron needs its binary (fetched on first run), a display, and a build of
// better-sqlite3 for Electron's ABI (fetched or compiled once into node_modules/.cache/airlock).
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
const passThrough = process.argv.slice(2)

function electronBinary() {
  const dir = join(root, 'node_modules', 'electron')
  const pathFile = join(dir, 'path.txt')
  if (!existsSync(pathFile)) {
    process.stderr.write('Airlock: fetching the Electron binary (first run)...\n')
    const fetched = spawnSync(process.execPath, [join(dir, 'install.js')], { stdio: 'ignore', timeout: 300_000 })
    if (fetched.status !== 0 || !existsSync(pathFile)) {
      throw new Error('the Electron binary could not be downloaded (no network to its release host?)')
    }
  }
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8'))
  if (!existsSync(binary)) throw new Error(`the Electron binary ${binary} is missing; delete node_modules/electron and npm install again`)
  return binary
}

function electronSqliteBinding() {
  const version = require('electron/package.json').version
  const cache = join(root, 'node_modules', '.cache', 'airlock', `better-sqlite3-electron-${version}-${process.platform}-${process.arch}`)
  const binding = join(cache, 'better_sqlite3.node')
  if (existsSync(binding)) return binding
  process.stderr.write(`Airlock: preparing better-sqlite3 for Electron ${version} (once)...\n`)
  const work = mkdtempSync(join(tmpdir(), 'airlock-sqlite-'))
  try {
    cpSync(dirname(require.resolve('better-sqlite3/package.json')), work, { recursive: true, filter: (p) => !p.includes(`${join('build', 'Release')}`) })
    const target = ['--runtime=electron', `--target=${version}`, `--arch=${process.arch}`]
    const prebuilt = spawnSync(join(root, 'node_modules', '.bin', 'prebuild-install'), target, { cwd: work, stdio: 'ignore', timeout: 300_000 })
    if (prebuilt.status !== 0) {
      const compiled = spawnSync(
        'npx',
        ['--yes', 'node-gyp', 'rebuild', '--release', `--target=${version}`, `--arch=${process.arch}`, '--dist-url=https://electronjs.org/headers'],
        { cwd: work, stdio: 'ignore', timeout: 900_000 }
      )
      if (compiled.status !== 0) throw new Error(`better-sqlite3 could not be fetched or compiled for Electron ${version}`)
    }
    mkdirSync(cache, { recursive: true })
    cpSync(join(work, 'build', 'Release', 'better_sqlite3.node'), binding)
    return binding
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

function whyElectronCannotStart() {
  if (process.env.AIRLOCK_NO_ELECTRON === '1') return { reason: 'AIRLOCK_NO_ELECTRON=1' }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { reason: 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)' }
  }
  try {
    return { binary: electronBinary(), binding: electronSqliteBinding() }
  } catch (error) {
    return { reason: error.message }
  }
}

function serveWebConsole(reason) {
  process.stderr.write(`Airlock: the desktop app cannot start here: ${reason}.\nAirlock: serving the web console instead.\n`)
  const child = spawn(process.execPath, [join(root, 'out', 'main', 'cli.js'), 'serve', ...passThrough], { stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code) => process.exit(code ?? 1))
}

const check = whyElectronCannotStart()
if (check.reason) {
  serveWebConsole(check.reason)
} else {
  const startedAt = Date.now()
  let stderr = ''
  const child = spawn(check.binary, [join(root, 'out', 'main', 'index.js'), ...passThrough], {
    stdio: ['ignore', 'inherit', 'pipe'],
    env: { ...process.env, AIRLOCK_SQLITE_BINDING: check.binding }
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
    process.stderr.write(chunk)
  })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    // A desktop app that dies within seconds never came up: fall back rather than leave nothing.
    if (code !== 0 && Date.now() - startedAt < 15_000) {
      const lastLine = stderr.trim().split('\n').at(-1) || `Electron exited with ${signal ?? code}`
      serveWebConsole(lastLine)
    } else process.exit(code ?? 0)
  })
}
