import { execFileSync } from 'node:child_process'
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { dirname, join, relative } from 'node:path'

/**
 * One attack's stage: a workspace the runner is bound to, a directory beside it (outside the
 * workspace) holding a secret, and the marker a hostile program would create there.
 */
export type Scene = { base: string; ws: string; outside: string; secretFile: string; marker: string }

/** The text of the secret outside the workspace; it must never reach a command's output. */
export const secretText = 'AIRLOCK-HOST-RUNNER-SECRET-7f3a'

/** Creates the scene's directories, the secret file and nothing else. */
export function makeScene(base: string): Scene {
  const scene = {
    base,
    ws: join(base, 'ws'),
    outside: join(base, 'outside'),
    secretFile: join(base, 'outside', 'secret.txt'),
    marker: join(base, 'outside', 'PWNED')
  }
  mkdirSync(scene.ws, { recursive: true })
  mkdirSync(scene.outside, { recursive: true })
  writeFileSync(scene.secretFile, `${secretText}\n`)
  return scene
}

/** The first line of the host's /etc/shadow when this process can read it (as root, the way CI runs). */
export function hostShadowLine(): string | undefined {
  try {
    return readFileSync('/etc/shadow', 'utf8').split('\n')[0] || undefined
  } catch {
    return undefined
  }
}

/** Writes a file (creating parents), optionally executable. */
export function put(path: string, text: string, executable = false): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  if (executable) chmodSync(path, 0o755)
}

/** A shell script that creates the scene's marker: the stand-in for any hostile program. */
export function evilScript(scene: Scene, path = join(scene.ws, 'evil.sh')): string {
  put(path, `#!/bin/sh\necho pwned > '${scene.marker}'\nexit 0\n`, true)
  return path
}

/** A shared object whose constructor creates the marker (built with the system C compiler). */
export function evilSharedObject(scene: Scene): string {
  const source = join(scene.outside, 'evil.c')
  const object = join(scene.ws, 'evil.so')
  writeFileSync(
    source,
    `#include <fcntl.h>\n#include <unistd.h>\n__attribute__((constructor)) static void pwn(void) { int fd = open("${scene.marker}", O_CREAT | O_WRONLY, 0644); if (fd >= 0) close(fd); }\n`
  )
  execFileSync('cc', ['-shared', '-fPIC', '-o', object, source])
  return object
}

/** Runs the host's git for test set-up with no user or system config. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: { PATH: '/usr/bin:/bin', HOME: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    encoding: 'utf8'
  }).trim()
}

/** Makes `dir` a repository with `files` committed; returns the commit id. */
export function commitRepo(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true })
  git(dir, 'init', '-q')
  for (const [name, text] of Object.entries(files)) put(join(dir, name), text)
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'initial')
  return git(dir, 'rev-parse', 'HEAD')
}

/** An OpenPGP signature from a throw-away key that no keyring holds (verifying it needs a key lookup). */
const foreignSignature = [
  '-----BEGIN PGP SIGNATURE-----',
  '',
  'iHUEABYIAB0WIQSUBVUJXEkicn0qr/BxJbkUwUylUQUCaw37GgAKCRBxJbkUwUyl',
  'Uc/zAQCrSgfeMobg94711RM9m3SHTmc65Si1+DZnKvybUbhytAEA1NKiq1+VhQ6t',
  'f8Qzz+vWN6UovyJJSY8EtRvHVztX3wE=',
  '=3UXA',
  '-----END PGP SIGNATURE-----'
]

/** Makes `dir` a repository whose HEAD is a commit carrying a `gpgsig` header, so log can verify it. */
export function signedCommitRepo(dir: string): void {
  commitRepo(dir, { 'a.txt': 'a\n' })
  const tree = git(dir, 'rev-parse', 'HEAD^{tree}')
  const body = [
    `tree ${tree}`,
    'author t <t@t> 1700000000 +0000',
    'committer t <t@t> 1700000000 +0000',
    `gpgsig ${foreignSignature.join('\n ')}`,
    '',
    'signed',
    ''
  ].join('\n')
  writeFileSync(join(dir, '.git', 'signed-commit'), body)
  git(dir, 'update-ref', 'HEAD', git(dir, 'hash-object', '-t', 'commit', '-w', '.git/signed-commit'))
}

/** A repository config section that runs the scene's evil script as a clean filter on every file. */
export function evilFilter(scene: Scene): string {
  return `[filter "evil"]\n\tclean = ${evilScript(scene)}\n`
}

/** A repository (already committed) whose `a.txt` is modified and marked for the `evil` filter. */
export function filteredChange(dir: string): void {
  commitRepo(dir, { 'a.txt': 'one\n' })
  put(join(dir, '.gitattributes'), '* filter=evil\n')
  put(join(dir, 'a.txt'), 'two\n')
}

/** A repository with a submodule whose own config (in .git/modules) runs the evil filter on a modified file. */
export function submoduleWithFilter(scene: Scene): void {
  commitRepo(join(scene.base, 'subsource'), { 'a.txt': 'one\n' })
  commitRepo(scene.ws, {})
  git(scene.ws, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', join(scene.base, 'subsource'), 'sub')
  git(scene.ws, 'commit', '-qm', 'add submodule')
  appendFileSync(join(scene.ws, '.git', 'modules', 'sub', 'config'), evilFilter(scene))
  put(join(scene.ws, 'sub', '.gitattributes'), '* filter=evil\n')
  put(join(scene.ws, 'sub', 'a.txt'), 'two\n')
}

/**
 * A repository whose index names a file outside the workspace (`../outside/secret.txt`): git does
 * not check index paths when it reads them, so `git diff` would read and print that file. The
 * entry is made for a same-length placeholder, then renamed in the index (checksum recomputed).
 */
export function indexEntryOutside(s: Scene): void {
  const target = relative(s.ws, s.secretFile)
  const placeholder = target.replace(/\.\./g, 'zz')
  commitRepo(s.ws, { [placeholder]: 'placeholder\n' })
  const indexPath = join(s.ws, '.git', 'index')
  const index = readFileSync(indexPath)
  const body = Buffer.from(
    index
      .subarray(0, index.length - 20)
      .toString('latin1')
      .replace(placeholder, target),
    'latin1'
  )
  writeFileSync(indexPath, Buffer.concat([body, createHash('sha1').update(body).digest()]))
}
