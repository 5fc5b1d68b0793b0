import { spawn } from 'node:child_process'
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type Docker from 'dockerode'
import { runBounded } from '../process/bounded-process'
import { systemPath } from '../process/run-limits'
import { airlockImage, type ImageProgress } from './docker-images'
import { labels } from './docker-engine'

/** Debian packages that bring each language's toolchain into a minimal root filesystem. */
export const languagePackages: Record<string, string[]> = {
  python: ['python3'],
  nodejs: ['nodejs'],
  bash: [],
  go: ['golang-go'],
  cpp: ['g++']
}

/** Bumped when provisioned images change shape; older ones are provisioned again by tests. */
export const imageFormatLabel = 'airlock.format'
export const imageFormat = '1'

/** The unprivileged user the provisioned images run code as. */
export const imageUser = { name: 'airlock', uid: 1000, gid: 1000 }

/** Where and how to provision. */
export type ProvisionOptions = {
  docker: Docker
  languages: string[]
  /** Scratch space for the root filesystem (under AIRLOCK_HOME/images). */
  workDir: string
  /** The operator's own root filesystem tarball, instead of debootstrap. */
  rootfsTarball?: string
  mirror?: string
  suite?: string
  onProgress?: (progress: ImageProgress) => void
}

/**
 * Builds images without a registry (SPEC §4): debootstrap a minimal Debian with the languages'
 * runtimes (or take the operator's rootfs tarball), add an unprivileged user, then `docker import`
 * it, labelled so Airlock can list and reuse it. The one image is tagged for every language given.
 */
export async function provisionImages(options: ProvisionOptions): Promise<string[]> {
  const tags = options.languages.map(airlockImage)
  const report = (stage: string, percent?: number) => options.onProgress?.({ image: tags.join(', '), stage, percent })
  mkdirSync(options.workDir, { recursive: true })
  const scratch = mkdtempSync(join(options.workDir, 'rootfs-'))
  try {
    let source: string
    const versions: Record<string, string> = {}
    if (options.rootfsTarball) {
      source = options.rootfsTarball
      report('using the given root filesystem', 50)
    } else {
      const packages = [...new Set(options.languages.flatMap((language) => languagePackages[language] ?? unknownLanguage(language)))]
      await debootstrap({ dir: scratch, packages, suite: options.suite ?? 'bookworm', mirror: options.mirror ?? aptMirror(), report })
      addUser(scratch)
      rmSync(join(scratch, 'var/cache/apt/archives'), { recursive: true, force: true })
      Object.assign(versions, await observeVersions(scratch))
      source = scratch
    }
    report('importing into the engine', 90)
    const [first, ...rest] = tags
    const [repo, tag] = first!.split(':')
    const changes = [
      `LABEL ${labels.managed}=true`,
      `LABEL ${labels.languages}=${options.languages.join(',')}`,
      `LABEL ${labels.user}=${imageUser.uid}:${imageUser.gid}`,
      `LABEL ${imageFormatLabel}=${imageFormat}`,
      ...Object.entries(versions).map(([name, version]) => `LABEL airlock.toolchain.${name}=${version}`)
    ]
    await importTar(options.docker, source, { repo: repo!, tag: tag!, changes })
    for (const other of rest) {
      const [otherRepo, otherTag] = other.split(':')
      await options.docker.getImage(first!).tag({ repo: otherRepo!, tag: otherTag! })
    }
    report('done', 100)
    return tags
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

async function debootstrap(options: { dir: string; packages: string[]; suite: string; mirror: string; report: (stage: string, percent?: number) => void }): Promise<void> {
  const args = ['--variant=minbase', ...(options.packages.length ? [`--include=${options.packages.join(',')}`] : []), options.suite, options.dir, options.mirror]
  const stages: [RegExp, string, number][] = [
    [/^I: Retrieving Release/, 'fetching the package lists', 5],
    [/^I: Retrieving/, 'downloading packages', 15],
    [/^I: Validating/, 'validating packages', 35],
    [/^I: Extracting/, 'extracting', 45],
    [/^I: Installing core packages/, 'installing core packages', 55],
    [/^I: Unpacking the base system/, 'unpacking', 65],
    [/^I: Configuring/, 'configuring', 75],
    [/^I: Base system installed successfully/, 'base system installed', 85]
  ]
  await new Promise<void>((resolve, reject) => {
    const child = spawn('debootstrap', args, { env: { PATH: `${systemPath}:/usr/sbin:/sbin`, LANG: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let lastStage = ''
    let tail = ''
    const onLine = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000)
      for (const line of chunk.toString().split('\n')) {
        const match = stages.find(([pattern]) => pattern.test(line))
        if (match && match[1] !== lastStage) {
          lastStage = match[1]
          options.report(match[1], match[2])
        }
      }
    }
    child.stdout.on('data', onLine)
    child.stderr.on('data', onLine)
    child.on('error', (error) => reject(new Error(`debootstrap could not start (${error.message}); install it: apt install debootstrap`)))
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`debootstrap failed (exit ${code}): ${tail.trim().split('\n').slice(-3).join(' | ')}`))))
  })
}

function addUser(root: string): void {
  appendFileSync(join(root, 'etc/passwd'), `${imageUser.name}:x:${imageUser.uid}:${imageUser.gid}::/home/${imageUser.name}:/bin/bash\n`)
  appendFileSync(join(root, 'etc/group'), `${imageUser.name}:x:${imageUser.gid}:\n`)
  mkdirSync(join(root, 'home', imageUser.name), { recursive: true })
  // Execution roots are mounted at their host paths; when Airlock runs as root those sit under
  // /root, which the image's user must be able to traverse (nothing else of /root is in the image).
  chmodSync(join(root, 'root'), 0o755)
}

/** Toolchain versions observed in the new root filesystem (chroot, as root). */
async function observeVersions(root: string): Promise<Record<string, string>> {
  const checks: Record<string, [string[], RegExp]> = {
    python: [['python3', '--version'], /Python (\S+)/],
    nodejs: [['node', '--version'], /v(\S+)/],
    go: [['go', 'version'], /go(\d[\d.]*)/],
    cpp: [['g++', '--version'], /(\d+\.\d+\.\d+)/]
  }
  const versions: Record<string, string> = {}
  for (const [name, [argv, pattern]] of Object.entries(checks)) {
    if (!existsSync(join(root, 'usr/bin', argv[0]!))) continue
    const result = await runBounded({ argv: ['/usr/sbin/chroot', root, ...argv], cwd: '/', env: { PATH: systemPath }, timeoutMs: 20_000, maxOutputBytes: 4096 })
    const version = pattern.exec(result.stdout + result.stderr)?.[1]
    if (version) versions[name] = version
  }
  return versions
}

async function importTar(docker: Docker, source: string, options: { repo: string; tag: string; changes: string[] }): Promise<void> {
  const tar = source.endsWith('.tar') || source.endsWith('.tar.gz') || source.endsWith('.tgz')
    ? spawn('cat', [source], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn('tar', ['--numeric-owner', '-C', source, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const stream = await docker.importImage(tar.stdout, { repo: options.repo, tag: options.tag, changes: options.changes } as Record<string, unknown>)
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve())))
}

/** The Debian mirror this machine's apt uses (so provisioning works where only that mirror is reachable). */
export function aptMirror(): string {
  const candidates: string[] = []
  for (const file of ['/etc/apt/sources.list', ...listDir('/etc/apt/sources.list.d').map((f) => join('/etc/apt/sources.list.d', f))]) {
    if (!file.endsWith('.list') && !file.endsWith('.sources')) continue
    const text = readText(file)
    for (const match of text.matchAll(/^\s*deb\s+(?:\[[^\]]*\]\s+)?(https?:\/\/\S+)/gm)) candidates.push(match[1]!)
    for (const match of text.matchAll(/^URIs:\s*(https?:\/\/\S+)/gm)) candidates.push(match[1]!)
  }
  return candidates.find((uri) => /debian/.test(uri) && !/security/.test(uri)) ?? 'http://deb.debian.org/debian'
}

function unknownLanguage(language: string): never {
  throw new Error(`no packages are known for ${language}; known: ${Object.keys(languagePackages).join(', ')}`)
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}
