import { spawn } from 'node:child_process'
import { appendFileSync, chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type Docker from 'dockerode'
import { dedicatedSandboxUid } from '../../core'
import { runBounded } from '../runner/bounded-process'
import { systemPath } from '../runner/run-limits'
import { DockerProviderError } from './docker-errors'
import { airlockImage, type ImageProgress } from './docker-images'
import { labels } from './docker-engine'
import { verifyImage } from './image-verification'
import { provisionFromRegistry } from './registry-provisioning'

/** Debian packages that bring each language's toolchain into a minimal root filesystem. */
export const languagePackages: Record<string, string[]> = {
  // pip: the developer and ci profiles install a bundle's requirements.txt with it (through the egress proxy).
  python: ['python3', 'python3-pip'],
  nodejs: ['nodejs'],
  bash: [],
  go: ['golang-go'],
  cpp: ['g++']
}

/** The label that records the shape of a provisioned image. */
export const imageFormatLabel = 'airlock.format'
/** Bumped when provisioned images change shape; older ones are provisioned again by tests (2: `/` is 0755, verified as the sandbox uid; 3: python has pip; 4: git in every image). */
export const imageFormat = '4'

/**
 * Packages every provisioned image carries whatever its language: git, because a coding agent's
 * workspace is a repository (its commits, diffs and status work in the container as on bubblewrap).
 */
export const commonPackages = ['git']

/** A name for the dedicated sandbox uid in the image (tools that look the user up find one); containers set the uid explicitly. */
const sandboxUser = { name: 'airlock', uid: dedicatedSandboxUid, gid: dedicatedSandboxUid }

/** Directories every user must be able to search in the image (a root filesystem built in a 0700 scratch dir keeps that mode for `/`). */
const searchableDirs = [
  '',
  'bin',
  'etc',
  'lib',
  'lib64',
  'root',
  'sbin',
  'usr',
  'usr/bin',
  'usr/lib',
  'usr/local',
  'usr/local/bin',
  'usr/share',
  'var',
  'home',
  'opt',
  'srv'
]

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
  /** The tag of the images (default `latest`); tests provision into a fresh one. */
  tag?: string
  /** Pull the languages' registry images instead of building (needs a registry); verified the same way. */
  fromRegistry?: boolean
  onProgress?: (progress: ImageProgress) => void
}

/**
 * Builds images without a registry (SPEC §4): debootstrap a minimal Debian with the languages'
 * runtimes (or take the operator's rootfs tarball), make it searchable by every user, `docker
 * import` it labelled so Airlock can list and reuse it, then run each toolchain in it as the
 * sandbox uid; an image that fails that check is removed and the error says why. With
 * `fromRegistry`, the registry image is pulled and checked instead (`provisionFromRegistry`).
 */
export async function provisionImages(options: ProvisionOptions): Promise<string[]> {
  if (options.fromRegistry) return provisionFromRegistry(options)
  const tags = options.languages.map((language) => airlockImage(language).replace(/:latest$/, `:${options.tag ?? 'latest'}`))
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
      const packages = [...new Set([...commonPackages, ...options.languages.flatMap((language) => languagePackages[language] ?? unknownLanguage(language))])]
      await debootstrap({ dir: scratch, packages, suite: options.suite ?? 'bookworm', mirror: options.mirror ?? aptMirror(), report })
      prepareRootfs(scratch)
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
      `LABEL ${imageFormatLabel}=${imageFormat}`,
      ...Object.entries(versions).map(([name, version]) => `LABEL airlock.toolchain.${name}=${version}`)
    ]
    try {
      await importTar(options.docker, source, { repo: repo!, tag: tag!, changes })
      for (const other of rest) {
        const [otherRepo, otherTag] = other.split(':')
        await options.docker.getImage(first!).tag({ repo: otherRepo!, tag: otherTag! })
      }
      report('checking the toolchains as the sandbox user', 95)
      await verifyImage(options.docker, first!, options.languages)
    } catch (error) {
      for (const tag of tags)
        await options.docker
          .getImage(tag)
          .remove({ force: true })
          .catch(() => undefined)
      if (error instanceof DockerProviderError) throw error
      throw new DockerProviderError(
        'docker.provisioning_failed',
        `Importing the root filesystem into the engine failed: ${(error as Error).message}`,
        { image: first },
        { cause: error }
      )
    }
    report('done', 100)
    return tags
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

async function debootstrap(options: {
  dir: string
  packages: string[]
  suite: string
  mirror: string
  report: (stage: string, percent?: number) => void
}): Promise<void> {
  const args = [
    '--variant=minbase',
    ...(options.packages.length ? [`--include=${options.packages.join(',')}`] : []),
    options.suite,
    options.dir,
    options.mirror
  ]
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
    child.on('error', (error) =>
      reject(new DockerProviderError('docker.provisioning_failed', `debootstrap could not start (${error.message}); install it: apt install debootstrap`))
    )
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(
            new DockerProviderError('docker.provisioning_failed', `debootstrap failed (exit ${code}): ${tail.trim().split('\n').slice(-3).join(' | ')}`, {
              exitCode: code
            })
          )
    )
  })
}

/**
 * Makes the new root filesystem usable by an unprivileged uid: `/` came from a 0700 scratch
 * directory and `/root` is 0700 in Debian, yet execution roots are mounted at their host paths
 * (under /root when Airlock runs as root). Only directories of the image change, never links.
 */
function prepareRootfs(root: string): void {
  for (const dir of searchableDirs) {
    const path = join(root, dir)
    const stat = existsSync(path) ? lstatSync(path) : undefined
    if (stat?.isDirectory()) chmodSync(path, (stat.mode & 0o7777) | 0o755)
  }
  chmodSync(join(root, 'tmp'), 0o1777)
  appendFileSync(join(root, 'etc/passwd'), `${sandboxUser.name}:x:${sandboxUser.uid}:${sandboxUser.gid}::/tmp:/bin/bash\n`)
  appendFileSync(join(root, 'etc/group'), `${sandboxUser.name}:x:${sandboxUser.gid}:\n`)
}

/** Toolchain versions observed in the new root filesystem (chroot, as root). */
async function observeVersions(root: string): Promise<Record<string, string>> {
  const checks: Record<string, [string[], RegExp]> = {
    python: [['python3', '--version'], /Python (\S+)/],
    nodejs: [['node', '--version'], /v(\S+)/],
    go: [['go', 'version'], /go(\d[\d.]*)/],
    cpp: [['g++', '--version'], /(\d+\.\d+\.\d+)/],
    git: [['git', '--version'], /git version (\S+)/]
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
  const tar =
    source.endsWith('.tar') || source.endsWith('.tar.gz') || source.endsWith('.tgz')
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
  throw new DockerProviderError('docker.provisioning_failed', `no packages are known for ${language}; known: ${Object.keys(languagePackages).join(', ')}`)
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
